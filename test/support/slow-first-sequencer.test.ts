import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SLOWEST_FILES } from './slow-first-sequencer';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the unit suite’s slowest files, run first', () => {
  it('names files that exist (a renamed one would silently fall back to the end)', () => {
    expect(SLOWEST_FILES.filter((f) => !fs.existsSync(path.join(ROOT, f)))).toEqual([]);
    expect(new Set(SLOWEST_FILES).size).toBe(SLOWEST_FILES.length);
  });
});
