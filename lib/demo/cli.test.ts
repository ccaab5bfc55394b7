import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../bin/cli';
import { naclPublicKey } from '../ledger/nacl-verify';
import { readKeyFile } from './identity';

let tmp: string;
let out: string;
let err: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-cli-'));
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('claimboard demo', () => {
  it('writes the channel once, prints its path on stdout and the operator key path on stderr', async () => {
    const dir = path.join(tmp, 'channel');
    expect(await main(['demo', dir])).toBe(0);
    expect(out).toBe(dir + '\n');
    expect(err).toContain(path.join(tmp, 'keys', 'ops.key'));
    expect(fs.existsSync(path.join(dir, 'agents', 'ops.json'))).toBe(true);

    out = '';
    err = '';
    expect(await main(['demo', dir])).toBe(0);
    expect(out).toBe(dir + '\n');
    expect(err).toMatch(/already exists and is a channel; left as it is/);
  });

  it('refuses a folder that is neither empty nor a channel', async () => {
    fs.writeFileSync(path.join(tmp, 'x.txt'), 'x');
    expect(await main(['demo', tmp])).toBe(1);
    expect(out).toBe('');
    expect(err).toMatch(/not empty/);
  });
});

describe('claimboard keygen', () => {
  it('writes a 0600 seed, prints the roster entry, refuses to overwrite, refuses unsafe names', async () => {
    const file = path.join(tmp, 'alice.key');
    expect(await main(['keygen', 'alice', '--out', file])).toBe(0);
    const entry = JSON.parse(out) as Record<string, unknown>;
    const seed = readKeyFile(file);
    expect(entry).toEqual({ name: 'alice', role: 'operator', capabilities: [], public_key: naclPublicKey(seed) });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(err).toContain('agents/alice.json');

    out = '';
    expect(await main(['keygen', 'alice', '--out', file])).toBe(1);
    expect(readKeyFile(file)).toBe(seed);
    expect(out).toBe('');

    expect(await main(['keygen', '../evil', '--out', path.join(tmp, 'evil.key')])).toBe(2);
    expect(fs.existsSync(path.join(tmp, 'evil.key'))).toBe(false);
  });
});
