/**
 * OrderWatches' budget (watches.ts): at most `budget` order folders watched, the most recently
 * changed; FolderWatch stops asking the system for watches once it said it has none left.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OrderWatches } from './watches';
import { FolderWatch } from '../disk/folder-watch';

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
  vi.restoreAllMocks();
});

/** A channel-shaped folder with order folders `dirs`. */
function channel(dirs: readonly string[]): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-watches-'));
  cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
  for (const d of ['agents', 'retirements', 'grants']) fs.mkdirSync(path.join(root, d));
  for (const d of dirs) fs.mkdirSync(path.join(root, 'tasks', d), { recursive: true });
  return root;
}

const orderFolders = (w: OrderWatches) => w.list().filter((d) => d.startsWith('tasks/'));

describe('OrderWatches: a budget of order folders, the most recently changed', () => {
  it('watches the channel level and the wanted folders up to the budget; a changed folder takes the watch of the least recently changed', () => {
    const all = ['a', 'b', 'c', 'd', 'e'];
    const root = channel(all);
    const done = new Set(['e']); // a finished order: never watched
    const w = new OrderWatches({ wants: (d) => !done.has(d), knows: (d) => all.includes(d), dirs: () => all }, 2);
    w.subscribe(root, () => {}, () => {});
    cleanup.push(() => w.close());
    expect(w.list()).toEqual(['', 'agents', 'grants', 'retirements', 'tasks', 'tasks/a', 'tasks/b']);
    // c changed: watched now (a new watch: look at it once more), a gives its watch up.
    expect(w.update('c')).toBe(true);
    expect(orderFolders(w)).toEqual(['tasks/b', 'tasks/c']);
    // b changed again: already watched, now the most recent; nothing given up.
    expect(w.update('b')).toBe(false);
    expect(orderFolders(w)).toEqual(['tasks/b', 'tasks/c']);
    // d changed: c is now the least recently changed.
    expect(w.update('d')).toBe(true);
    expect(orderFolders(w)).toEqual(['tasks/b', 'tasks/d']);
    // b's order finished: its watch goes, and the budget has room for the next change.
    done.add('b');
    expect(w.update('b')).toBe(false);
    expect(orderFolders(w)).toEqual(['tasks/d']);
    expect(w.update('a')).toBe(true);
    expect(orderFolders(w)).toEqual(['tasks/a', 'tasks/d']);
    expect(w.orderFolders).toBe(2);
  });

  it('tasks/ replaced: the folders watched before are watched again first', () => {
    const all = ['a', 'b', 'c'];
    const root = channel(all);
    const w = new OrderWatches({ wants: () => true, knows: () => true, dirs: () => all }, 2);
    w.subscribe(root, () => {}, () => {});
    cleanup.push(() => w.close());
    w.update('c'); // a gives its watch up
    w.watchOrderFoldersAgain();
    expect(orderFolders(w)).toEqual(['tasks/b', 'tasks/c']);
  });

  it('a budget of 0 watches no order folder, the channel level still', () => {
    const root = channel(['a']);
    const w = new OrderWatches({ wants: () => true, knows: () => true, dirs: () => ['a'] }, 0);
    w.subscribe(root, () => {}, () => {});
    cleanup.push(() => w.close());
    expect(w.update('a')).toBe(false);
    expect(w.list()).toEqual(['', 'agents', 'grants', 'retirements', 'tasks']);
  });
});

describe('FolderWatch: out of inotify watches', () => {
  it('says so once and asks no more until one of its watches is given back', () => {
    const root = channel(['a', 'b', 'c', 'd']);
    const real = fs.watch.bind(fs);
    let granted = 0;
    const asked: string[] = [];
    // The system grants two watches, then has none left (ENOSPC), as a full fs.inotify.max_user_watches does.
    const spy = vi.spyOn(fs, 'watch').mockImplementation(((p: fs.PathLike, o: fs.WatchOptions, l: fs.WatchListener<string>) => {
      asked.push(path.basename(String(p)));
      if (granted >= 2) throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
      granted++;
      return real(p, o, l);
    }) as typeof fs.watch);
    const said: string[] = [];
    const w = new FolderWatch(root, () => {}, (why) => said.push(why));
    cleanup.push(() => w.close());
    expect(['tasks/a', 'tasks/b', 'tasks/c', 'tasks/d'].map((d) => w.watch(d))).toEqual([true, true, false, false]);
    expect(asked).toEqual(['a', 'b', 'c']); // d was not asked for
    expect(said).toEqual(['cannot watch tasks/c: ENOSPC']);
    w.unwatch('tasks/a');
    granted = 1;
    expect(w.watch('tasks/d')).toBe(true);
    expect(asked).toEqual(['a', 'b', 'c', 'd']);
    spy.mockRestore();
  });
});
