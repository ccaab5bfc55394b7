/**
 * The quick look in slices (looks.ts quickSlice): a write waits for one slice of it at most, and
 * the slices of one quick look find exactly what the whole look finds: folders changed in memory
 * and in the store, gone ones, new ones, whatever happens between two slices.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderLooks, type StoredFolders } from './looks';
import { cyrb53, listingFingerprint, statKey } from './order-pass';
import { listOrderFolder } from '../disk/read-channel';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** A channel of `n` order folders d000.. each holding one file, under a new temp folder. */
function channel(n: number): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-quick-'));
  dirs.push(root);
  fs.mkdirSync(path.join(root, 'agents'));
  for (let i = 0; i < n; i++) write(root, `d${String(i).padStart(3, '0')}`, 'order.json');
  return root;
}

function write(root: string, d: string, file: string): void {
  fs.mkdirSync(path.join(root, 'tasks', d), { recursive: true });
  fs.writeFileSync(path.join(root, 'tasks', d, file), `{"d":"${d}","f":"${file}"}`);
}

/** A folder's two fingerprints as a pass stores them (the same pairs lookFolder makes). */
function fingerprints(root: string, d: string): { self: number; listing: number } {
  const l = listOrderFolder(root, d);
  if (!l) throw new Error(`no folder ${d}`);
  return { self: cyrb53(statKey(l.self)), listing: listingFingerprint([[`tasks/${d}`, statKey(l.self)], ...l.entries.map((e): [string, string] => [e.rel, statKey(e.st)])]) };
}

/** The store's folders, in a map kept in name order as the index's table is read. */
function store(rows: Map<string, { self: number; listing: number }>): StoredFolders {
  const sorted = () => [...rows.keys()].sort();
  return {
    get: (d) => rows.get(d),
    forEach: (fn) => {
      for (const d of sorted()) fn(d, (rows.get(d) as { self: number }).self, (rows.get(d) as { listing: number }).listing);
    },
    after: (after, n) => sorted().filter((d) => d > after).slice(0, n).map((dir) => ({ dir, ...(rows.get(dir) as { self: number; listing: number }) })),
    names: sorted,
    count: () => rows.size,
  };
}

/**
 * The looks of a channel of `n` folders as a start leaves them: every folder stored, the first
 * `live` also in memory (their orders not finished); `rows` is the store, which a test may add to.
 */
function looksOf(n: number, live: number): { root: string; rows: Map<string, { self: number; listing: number }>; looks: FolderLooks } {
  const root = channel(n);
  const rows = new Map<string, { self: number; listing: number }>();
  const looks = new FolderLooks(root, (d) => [`tasks/${d}`, `tasks/${d}/order.json`], store(rows), () => {});
  for (let i = 0; i < n; i++) {
    const d = `d${String(i).padStart(3, '0')}`;
    const f = fingerprints(root, d);
    rows.set(d, f);
    if (i < live) looks.remember(d, f.self, f.listing);
  }
  looks.readChannelLevel();
  return { root, rows, looks };
}

describe('the quick look in slices', () => {
  it('finds what the whole look finds, one small slice at a time, and times the look as their sum', () => {
    // d000-d099 live (memory), d100-d299 finished (the store only).
    const { root, looks } = looksOf(300, 100);
    expect([...looks.quick().dirty]).toEqual([]);
    // A claim in two live folders and two finished ones; a finished folder and a live one gone; two new folders.
    for (const d of ['d005', 'd077', 'd150', 'd298']) write(root, d, 'claim.fang.json');
    for (const d of ['d200', 'd050']) fs.rmSync(path.join(root, 'tasks', d), { recursive: true });
    for (const d of ['n1', 'n2']) write(root, d, 'order.json');
    const want = ['d005', 'd050', 'd077', 'd150', 'd200', 'd298', 'n1', 'n2'];
    expect([...looks.quick().dirty].sort()).toEqual(want);

    // Slices of no time at all: each looks at one chunk (64 folders, or a chunk of the store) and says there is more.
    const found = new Set<string>();
    let slices = 0;
    for (let more = true; more; slices++) {
      const r = looks.quickSlice(true, 0);
      for (const d of r.dirty) found.add(d);
      more = r.more;
      expect(looks.quickUnderWay).toBe(more);
      expect(r.folders).toBe(300); // 300 - 2 gone + 2 new
    }
    expect([...found].sort()).toEqual(want);
    expect(slices).toBeGreaterThanOrEqual(3); // memory's 100 folders take two, the store's at least one
    expect(looks.quickMs).toBeGreaterThan(0);
  });

  it('a folder stored by a pass between two slices is not taken for new; a full look drops the quick look under way', () => {
    const { root, rows, looks } = looksOf(200, 200);
    write(root, 'new', 'order.json');
    const first = looks.quickSlice(true, 0);
    expect([first.more, [...first.dirty]]).toEqual([true, []]);
    // A write's pass stores the new folder before the look reaches it.
    const f = fingerprints(root, 'new');
    looks.remember('new', f.self, f.listing);
    rows.set('new', f);
    const found = new Set<string>();
    for (let r = looks.quickSlice(true, 0); ; r = looks.quickSlice(true, 0)) {
      for (const d of r.dirty) found.add(d);
      if (!r.more) break;
    }
    expect([...found]).toEqual([]);
    // A full look covers everything: the quick look under way ends with it.
    looks.quickSlice(true, 0);
    expect(looks.quickUnderWay).toBe(true);
    looks.full();
    expect(looks.quickUnderWay).toBe(false);
  });
});
