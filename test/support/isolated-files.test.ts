import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISOLATED } from '../../vitest.config';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIRS = ['lib', 'test', 'bin', 'app', 'components', 'deploy'];

function testFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    return e.isDirectory() ? testFiles(rel) : e.name.endsWith('.test.ts') ? [rel] : [];
  });
}

describe('the unit files that replace modules run in a module graph of their own', () => {
  it('every test file that calls vi.mock, vi.doMock or vi.resetModules is in ISOLATED, and only those', () => {
    // Spelled apart so that this file does not name itself.
    const replaces = new RegExp(['vi\\.mock', 'vi\\.doMock', 'vi\\.resetModules'].map((c) => `${c}\\(`).join('|'));
    const found = DIRS.flatMap(testFiles).filter((f) => replaces.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
    expect(found.sort()).toEqual([...ISOLATED].sort());
  });
});
