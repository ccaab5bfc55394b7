/**
 * The read floor: a plain Node loop on one thread, readdir + lstat + readFile of every
 * file under `root`, nothing parsed. What a cold index is measured against. Wall ms
 * (performance.now), files read, their bytes. Throws what the reads throw.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

export function readFloor(root: string): { ms: number; files: number; bytes: number } {
  const t = performance.now();
  let files = 0;
  let bytes = 0;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        fs.lstatSync(p);
        bytes += fs.readFileSync(p).length;
        files++;
      }
    }
  };
  walk(root);
  return { ms: performance.now() - t, files, bytes };
}
