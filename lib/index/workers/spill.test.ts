/** The unchecked signatures on disk (spill.ts): what is kept is what is checked, byte for byte, and a cut file is refused. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkSegment, segmentsIn, SpillWriter } from './spill';
import { bytesThrough } from '../disk/verifier';
import { naclPublicKey, naclSign } from '../../ledger/nacl-verify';
import { nodeVerify } from '../disk/node-verify';
import { seedOf } from '../../../test/support/channel-builder';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-spill-'));
  dirs.push(d);
  return d;
};

describe('spill segments', () => {
  it('hands the verifier exactly what was kept, and names the folders where a signature failed', () => {
    const dir = tmp();
    const w = new SpillWriter(dir, 'w1');
    const key = naclPublicKey(seedOf('fang'));
    const good = 'ferryman-result-v1\nt1\nfang\n1\n2026-11-20T09:30:00Z\nsumm\u00e4ry \u2713';
    const sig = naclSign(seedOf('fang'), good);
    // Upper-case hex is the same key and signature (the verifier reads hex either way).
    expect(w.add('t1', key.toUpperCase(), good, sig.toUpperCase())).toBe(true);
    expect(w.add('t2', key, good, sig)).toBe(true);
    expect(w.add('t2', key, `${good}!`, sig)).toBe(true); // a signature over other bytes
    expect(w.add('T3', key, good, sig)).toBe(true);
    // Not 64 / 128 hex digits: not kept (the caller verifies it at once).
    expect(w.add('t4', key.slice(2), good, sig)).toBe(false);
    expect(w.add('t4', key, good, `${sig}00`)).toBe(false);
    w.flush();
    const seen: [string, string, string][] = [];
    const files = segmentsIn(dir);
    expect(files).toEqual([path.join(dir, 'w1-0.bin')]);
    const c = checkSegment(files[0] as string, bytesThrough((k, m, s) => (seen.push([k, m, s]), nodeVerify(k, m, s))));
    expect(seen).toEqual([
      [key, good, sig],
      [key, good, sig],
      [key, `${good}!`, sig],
      [key, good, sig],
    ]);
    expect(c).toEqual({ ok: ['t1', 'T3'], failed: ['t2'], checked: 4 });
  });

  it('refuses a segment cut short', () => {
    const dir = tmp();
    const w = new SpillWriter(dir, 'main');
    const key = naclPublicKey(seedOf('ops'));
    w.add('t1', key, 'm', naclSign(seedOf('ops'), 'm'));
    w.flush();
    const f = path.join(dir, 'main-0.bin');
    fs.truncateSync(f, fs.statSync(f).size - 1);
    expect(() => checkSegment(f, bytesThrough(nodeVerify))).toThrow(/cut short at byte 0/);
  });
});
