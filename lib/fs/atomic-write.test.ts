/**
 * The one atomic writer's own choice neither caller's tests reach: a file system without hard
 * links (link fails with EPERM, as on some FUSE and SMB mounts). The actions refuse there (a
 * check-then-rename could replace another writer's file that arrives in between); the demo,
 * alone on its paths, checks and renames. The rest is covered through its callers:
 * lib/actions/write.test.ts (races, symlinks, a full disk, a read-only folder) and
 * lib/demo/write.test.ts (write-once kinds, rewritten kinds).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeAtomic, WriteError } from './atomic-write';

let dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-atomic-'));
  dirs.push(d);
  return d;
}

function noHardLinks(): void {
  vi.spyOn(fs, 'linkSync').mockImplementation(() => {
    throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
  });
}

const bytes = new TextEncoder().encode('{"a":1}');

describe('a new file where the file system has no hard links', () => {
  it("by default is refused as WriteError('io') naming EPERM, leaving the folder empty", () => {
    const dir = tmpDir();
    noHardLinks();
    let err: unknown = null;
    try {
      writeAtomic(path.join(dir, 'tasks/t1/claim.fang.json'), bytes, 'new');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(WriteError);
    expect((err as WriteError).code).toBe('io');
    expect((err as WriteError).message).toBe('cannot place claim.fang.json: EPERM');
    // tasks/ and tasks/t1/ were created for the write and are taken back with it.
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('with check-then-rename is written whole, no temp file left; a file already there is still refused', () => {
    const dir = tmpDir();
    noHardLinks();
    const abs = path.join(dir, 'claim.fang.json');
    writeAtomic(abs, bytes, 'new', { withoutHardLinks: 'check-then-rename' });
    expect(fs.readFileSync(abs, 'utf8')).toBe('{"a":1}');
    expect(fs.readdirSync(dir)).toEqual(['claim.fang.json']);
    expect(() => writeAtomic(abs, new TextEncoder().encode('other'), 'new', { withoutHardLinks: 'check-then-rename' })).toThrow(
      'claim.fang.json already exists',
    );
    expect(fs.readFileSync(abs, 'utf8')).toBe('{"a":1}');
    expect(fs.readdirSync(dir)).toEqual(['claim.fang.json']);
  });
});
