import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { staleAfterMsFor } from './stale-after-for';

let tmp: string | null = null;
afterEach(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  tmp = null;
});

it('is --stale-after when given, the demo 30 s on a folder with a demo manifest beside it, else 300 s', () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-stale-for-'));
  const demo = path.join(tmp, 'demo');
  const plain = path.join(tmp, 'plain');
  fs.mkdirSync(demo);
  fs.mkdirSync(plain);
  fs.writeFileSync(path.join(tmp, 'demo.fleet.json'), '{}');
  expect(staleAfterMsFor(demo, undefined)).toBe(30_000);
  expect(staleAfterMsFor(plain, undefined)).toBe(300_000);
  expect(staleAfterMsFor(demo, 2.5)).toBe(2_500);
  expect(staleAfterMsFor(plain, 600)).toBe(600_000);
});
