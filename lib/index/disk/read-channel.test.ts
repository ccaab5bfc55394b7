/** The filesystem reader on real folders. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelUnreadableError, entryFromStat, readChannel } from './read-channel';
import { channelStateOf } from '../channel-state';

let dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-read-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});
const write = (root: string, rel: string, content: string | Buffer) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), content);
};

describe('readChannel', () => {
  it('refuses a missing folder and a folder that is not a channel, with one line', () => {
    const root = tmp();
    expect(() => readChannel(path.join(root, 'nope'))).toThrow(ChannelUnreadableError);
    expect(() => readChannel(path.join(root, 'nope'))).toThrow(/^no such folder: /);
    expect(() => readChannel(root)).toThrow(/not a channel/);
  });
  it('lists symlinks as symlinks without following them, even to a directory outside', () => {
    const root = tmp();
    const outside = tmp();
    write(outside, 'secret/claim.fang.json', '{"order_id":"t1","agent":"fang","claimed_at":"2026-11-20T09:00:00Z"}');
    write(root, 'tasks/t1/order.json', '{}');
    fs.symlinkSync(path.join(outside, 'secret/claim.fang.json'), path.join(root, 'tasks/t1/claim.fang.json'));
    fs.symlinkSync(path.join(outside, 'secret'), path.join(root, 'tasks/t2'));
    const entries = readChannel(root);
    const byPath = new Map(entries.map((e) => [e.path, e]));
    expect(byPath.get('tasks/t1/claim.fang.json')).toMatchObject({ type: 'symlink', bytes: null });
    expect(byPath.get('tasks/t2')).toMatchObject({ type: 'symlink', bytes: null });
    expect(entries.some((e) => e.path.startsWith('tasks/t2/'))).toBe(false);
  });
  it('does not descend into dot folders and does not read files over 1 MiB', () => {
    const root = tmp();
    write(root, 'tasks/t1/order.json', '{}');
    write(root, '.stversions/tasks/t1/claim.fang.json', '{}');
    write(root, 'tasks/t1/result.fang.001.json', Buffer.alloc(1024 * 1024 + 10, 0x20));
    const entries = readChannel(root);
    expect(entries.some((e) => e.path.startsWith('.stversions'))).toBe(false);
    expect(entries.find((e) => e.path === 'tasks/t1/result.fang.001.json')).toMatchObject({ size: 1024 * 1024 + 10, bytes: null });
  });
  it('takes the ctime as arrival: a chmod (which changes ctime, not mtime) moves it', async () => {
    const root = tmp();
    write(root, 'tasks/t1/order.json', '{}');
    const before = readChannel(root).find((e) => e.path === 'tasks/t1/order.json')?.arrivalMs ?? 0;
    await new Promise((r) => setTimeout(r, 30));
    fs.chmodSync(path.join(root, 'tasks/t1/order.json'), 0o600);
    const after = readChannel(root).find((e) => e.path === 'tasks/t1/order.json')?.arrivalMs ?? 0;
    expect(after - before).toBeGreaterThanOrEqual(20);
    expect(fs.statSync(path.join(root, 'tasks/t1/order.json')).ctimeMs).toBe(after);
  });
  it('a file where an order directory belongs is a problem; the rest derives', () => {
    const root = tmp();
    fs.cpSync(path.resolve(__dirname, '../../../conformance/vectors/09-done/channel'), root, { recursive: true });
    write(root, 'tasks/stray', 'not a directory');
    const st = channelStateOf(root);
    expect(st.problems.map((p) => [p.path, p.problem])).toEqual([['tasks/stray', 'invalid']]);
    expect(st.orders.map((o) => [o.order_id, o.state])).toEqual([['t1', 'done']]);
  });
});

describe('entryFromStat', () => {
  it('reads a file whole, and a file that grew after its lstat one byte past the size lstat gave', () => {
    const root = tmp();
    write(root, 'tasks/t1/claim.a.json', 'x'.repeat(300));
    const rel = 'tasks/t1/claim.a.json';
    const abs = path.join(root, rel);
    const st = fs.lstatSync(abs);
    const whole = entryFromStat(root, rel, st, st.ctimeMs, abs);
    expect(whole.bytes?.length).toBe(300);
    expect(whole.size).toBe(300);
    // Grown by 100 bytes since: 301 read (the limit), and the size says it is larger than lstat said.
    fs.appendFileSync(abs, 'y'.repeat(100));
    const grown = entryFromStat(root, rel, st);
    expect(grown.bytes?.length).toBe(301);
    expect(grown.size).toBe(301);
    // Shrunk to 10 bytes since: the 10 there are.
    fs.writeFileSync(abs, 'z'.repeat(10));
    expect(entryFromStat(root, rel, st).bytes?.length).toBe(10);
  });
});
