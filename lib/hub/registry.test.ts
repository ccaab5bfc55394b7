import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseRegistry, readRegistry, RegistryError, registryText, writeRegistry, type RegistryEntry } from './registry';
import { openWriter, closeWriter, readDbOf } from '../index/db';
import { removeFolder, tempFolder } from '../../test/support/hub';

let dir: string;
beforeEach(() => {
  dir = tempFolder('cb-registry-');
});
afterEach(() => removeFolder(dir));

const ALPHA: RegistryEntry = { name: 'alpha', root: '/srv/alpha', db: '/idx/a.sqlite', state: 'served', why: null, since_ms: 1000 };
const BETA: RegistryEntry = { name: 'beta', root: '/srv/beta', db: '/idx/b.sqlite', state: 'gone', why: 'folder gone', since_ms: 2000 };

describe('the served-channel registry', () => {
  it('reads back what was written, in order, and keeps nothing else in the folder', () => {
    const file = path.join(dir, 'index', 'channels.json');
    writeRegistry(file, [ALPHA, BETA]);
    expect(readRegistry(file).entries).toEqual([ALPHA, BETA]);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['channels.json']);
    writeRegistry(file, [BETA]);
    expect(readRegistry(file).entries).toEqual([BETA]);
  });

  it('is read once per file written: the same object while the file is the same, a new one after a write', () => {
    const file = path.join(dir, 'channels.json');
    writeRegistry(file, [ALPHA]);
    const first = readRegistry(file);
    expect(readRegistry(file)).toBe(first);
    writeRegistry(file, [ALPHA]);
    const second = readRegistry(file);
    expect(second).not.toBe(first);
    expect(second.id).not.toBe(first.id);
    expect(second.entries).toEqual([ALPHA]);
  });

  it('refuses a missing, half-written or foreign file with a RegistryError naming the file and why', () => {
    const file = path.join(dir, 'channels.json');
    expect(() => readRegistry(file)).toThrow(new RegistryError(`no channel registry at ${file}: start the dashboard with \`claimboard serve\``));
    const whole = registryText([ALPHA, BETA]);
    fs.writeFileSync(file, whole.slice(0, whole.length / 2));
    expect(() => readRegistry(file)).toThrow(RegistryError);
    expect(() => readRegistry(file)).toThrow(/^the channel registry .*channels\.json is not JSON \(/);
    fs.writeFileSync(file, '[1, 2]');
    expect(() => readRegistry(file)).toThrow(`the channel registry ${file} is not one: the file: Invalid input: expected object, received array`);
  });

  it('refuses entries that are not channels: a bad name, a relative path, an unknown state, two of one name', () => {
    const f = 'x.json';
    const one = (e: Record<string, unknown>) => JSON.stringify({ channels: [{ ...ALPHA, ...e }] });
    expect(() => parseRegistry(one({ name: 'a b' }), f)).toThrow('the channel registry x.json is not one: channels.0.name: not a channel name (letters, digits, ".", "-" and "_" only)');
    expect(() => parseRegistry(one({ db: 'a.sqlite' }), f)).toThrow('the channel registry x.json is not one: channels.0.db: not an absolute path');
    expect(() => parseRegistry(one({ state: 'paused' }), f)).toThrow(/^the channel registry x\.json is not one: channels\.0\.state: /);
    expect(() => parseRegistry(JSON.stringify({ channels: [ALPHA, { ...BETA, name: 'alpha' }] }), f)).toThrow('the channel registry x.json is not one: the file: two channels of one name');
  });
});

describe('readDbOf', () => {
  it('keeps one connection per index file, and opens a new one when the file at the path is another', () => {
    const a = path.join(dir, 'a.sqlite');
    const b = path.join(dir, 'b.sqlite');
    closeWriter(openWriter(a));
    closeWriter(openWriter(b));
    const ra = readDbOf(a);
    const rb = readDbOf(b);
    expect(rb).not.toBe(ra);
    expect(readDbOf(a)).toBe(ra);
    expect(readDbOf(b)).toBe(rb);
    // Another file moved over a's path: a is read from it, b keeps its connection.
    fs.rmSync(a);
    closeWriter(openWriter(path.join(dir, 'c.sqlite')));
    fs.renameSync(path.join(dir, 'c.sqlite'), a);
    const again = readDbOf(a);
    expect(again).not.toBe(ra);
    expect(ra.open).toBe(false);
    expect(readDbOf(b)).toBe(rb);
    again.close();
    rb.close();
  });
});
