import 'server-only';
/**
 * Reads a channel folder from disk into the pure core's entries.
 *
 * Walks without following symlinks (lstat), does not descend into what docs/channel-format.md skips
 * (names starting with `.`), reads at most MAX_RECORD_BYTES + 1 bytes of a file (opened with
 * O_NOFOLLOW so a symlink swapped in after the lstat is not followed either), and takes each
 * file's ctime as its arrival on this machine's clock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MAX_RECORD_BYTES } from '../../ledger/names';
import type { ChannelEntry } from '../../ledger/channel';

/** Why a folder cannot be read as a channel at all (the CLI's one-line error). */
export class ChannelUnreadableError extends Error {
  override readonly name = 'ChannelUnreadableError';
}

/**
 * Checks that `root` is a directory that looks like a channel (has `tasks/` or `agents/`).
 * Throws ChannelUnreadableError with a one-line reason otherwise.
 */
export function assertChannelRoot(root: string): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(root);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ChannelUnreadableError(
      code === 'ENOENT' ? `no such folder: ${root}` : `cannot read ${root}: ${code ?? String(e)}`,
    );
  }
  if (!st.isDirectory()) throw new ChannelUnreadableError(`not a folder: ${root}`);
  const has = (d: string) => {
    try {
      return fs.lstatSync(path.join(root, d)).isDirectory();
    } catch {
      return false;
    }
  };
  if (!has('tasks') && !has('agents')) {
    throw new ChannelUnreadableError(`not a channel (no tasks/ or agents/ folder): ${root}`);
  }
}

/** Whether `abs` is a directory itself (lstat: a symlink to one is not). */
export function isRealDir(abs: string): boolean {
  try {
    return fs.lstatSync(abs).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Entries an order folder may hold and still be read: far above any real order's (a claim, a
 * result and a heartbeat per attempt, a few decisions), low enough that a folder any machine of
 * the fleet fills with junk costs one bounded listing, not a read of every file.
 */
export const MAX_FOLDER_ENTRIES = 10_000;

/**
 * The names in `absDir`, sorted, reading at most `max` + 1 of them (names starting with `.`
 * count too: they are listed as well); or why it is not read: over `max` entries, or not listable.
 */
/** The start of the reason a folder that cannot be listed is not read (listCapped). */
export const NOT_LISTABLE = 'cannot list it: ';

/** The folders among `problems` that could not be listed (their contents are missing from the board). */
export function unlistedFolders(problems: readonly { readonly path: string; readonly detail: string }[]): string[] {
  return problems.filter((p) => p.detail.startsWith(NOT_LISTABLE)).map((p) => p.path);
}

/** Why the directory `abs` cannot be listed, or null when it can (opened and closed, nothing read). */
export function unlistable(abs: string): string | null {
  try {
    fs.opendirSync(abs).closeSync();
    return null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return `${NOT_LISTABLE}${(e as NodeJS.ErrnoException).code ?? String(e)}; nothing in it is read`;
  }
}

export function listCapped(absDir: string, max: number): { readonly names: string[] } | { readonly refused: string } {
  let dir: fs.Dir;
  try {
    dir = fs.opendirSync(absDir);
  } catch (e) {
    // Gone since it was seen (or a name that is not valid UTF-8, which cannot be opened by it): nothing in it, as before.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { names: [] };
    return { refused: `${NOT_LISTABLE}${(e as NodeJS.ErrnoException).code ?? String(e)}; nothing in it is read` };
  }
  const names: string[] = [];
  try {
    for (let d = dir.readSync(); d !== null; d = dir.readSync()) {
      if (names.length >= max) return { refused: `more than ${max} entries: none of them is read` };
      names.push(d.name);
    }
  } catch (e) {
    return { refused: `${NOT_LISTABLE}${(e as NodeJS.ErrnoException).code ?? String(e)}; nothing in it is read` };
  } finally {
    dir.closeSync();
  }
  return { names: names.sort() };
}

/**
 * Reads at most `limit` bytes of a regular file without following a symlink; null when
 * unreadable. Callers pass one byte more than lstat's size, to notice a file that grew since.
 */
export function readCapped(abs: string, limit: number): Uint8Array | null {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO swapped in after the lstat must not block the open (reads stay capped).
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const buf = Buffer.allocUnsafe(Math.max(1, limit));
    let off = 0;
    while (off < limit) {
      const want = limit - off;
      const n = fs.readSync(fd, buf, off, want, off);
      if (n === 0) break;
      off += n;
      // Short by the byte past lstat's size (the limit is that size + 1): the file's end as lstat
      // saw it, no second read to be told 0 (a cold index reads 590,000 files at 100,000 orders).
      if (n < want && off >= limit - 1) break;
    }
    return new Uint8Array(buf.buffer, buf.byteOffset, off);
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Reads one channel file on a request's path by the indexer's own rules: lstat (a symlink is not
 * followed), regular files only, at most MAX_RECORD_BYTES (read with O_NOFOLLOW). `missing` when
 * nothing is there; otherwise the bytes, or why the file is not read.
 */
export function readChannelFile(abs: string): { readonly bytes: Uint8Array } | { readonly missing: true } | { readonly refused: string } {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { missing: true } : { refused: `cannot read it: ${code ?? String(e)}` };
  }
  if (st.isSymbolicLink()) return { refused: 'a symlink; not followed' };
  if (!st.isFile()) return { refused: 'not a regular file' };
  if (st.size > MAX_RECORD_BYTES) return { refused: `${st.size} bytes, over the 1 MiB limit` };
  const bytes = readCapped(abs, st.size + 1);
  if (!bytes) return { refused: 'unreadable' };
  if (bytes.length > MAX_RECORD_BYTES) return { refused: 'over the 1 MiB limit' };
  return { bytes };
}

/** Whether nothing is at `abs` now (lstat: ENOENT): a file listed, then gone before it was read. */
export function goneNow(abs: string): boolean {
  try {
    fs.lstatSync(abs);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** Lists one path (lstat) as a ChannelEntry, reading content for small regular files; null when it is gone. */
export function statEntry(root: string, rel: string): ChannelEntry | null {
  try {
    return entryFromStat(root, rel, fs.lstatSync(path.join(root, rel)));
  } catch {
    return null;
  }
}

/**
 * Visits every entry of the channel at `root` that claimboard may read, with
 * its lstat: does not descend into names starting with `.` nor deeper than `tasks/<id>/`,
 * never follows a symlink. A directory not read (not listable, or a folder two levels down with
 * over MAX_FOLDER_ENTRIES entries) is told to `refused` with why ('' for the root) and passed
 * over. Never throws for content.
 */
export function walkChannel(root: string, visit: (rel: string, st: fs.Stats) => void, refused?: (rel: string, why: string) => void): void {
  const walk = (relDir: string, depth: number) => {
    const absDir = relDir ? path.join(root, relDir) : root;
    // A folder at the depth of tasks/<id> is listed capped; the levels above hold the layout's few folders and the orders.
    const listed = listCapped(absDir, depth === 2 ? MAX_FOLDER_ENTRIES : Number.MAX_SAFE_INTEGER);
    if ('refused' in listed) {
      refused?.(relDir, listed.refused);
      return;
    }
    const names = listed.names;
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const rel = relDir ? `${relDir}/${name}` : name;
      let st: fs.Stats | null;
      try {
        st = fs.lstatSync(path.join(root, rel));
      } catch {
        // Vanished between readdir and lstat, or a name that is not valid UTF-8: it reads back
        // with U+FFFD and cannot be reached by that string. Such an entry is listed by its bytes
        // (reading it by its lossy name finds nothing: a problem), never dropped.
        st = name.includes('\uFFFD') ? lstatUndecodable(absDir, name) : null;
        if (!st) continue;
        visit(rel, st);
        continue; // never descended into: nothing under it can be reached by name
      }
      visit(rel, st);
      // The layout is at most three levels deep (tasks/<id>/<file>); deeper is never read.
      if (st.isDirectory() && depth < 2) walk(rel, depth + 1);
    }
  };
  walk('', 0);
}

/**
 * The lstat of the entry of `absDir` whose name is not valid UTF-8 and reads back (lossily,
 * with U+FFFD) as `lossy`; null when there is none. Such an entry cannot be opened by its
 * string name: callers report it as unreadable instead of dropping it.
 */
export function lstatUndecodable(absDir: string, lossy: string): fs.Stats | null {
  try {
    for (const raw of fs.readdirSync(absDir, { encoding: 'buffer' })) {
      if (raw.toString('utf8') !== lossy) continue;
      try {
        return fs.lstatSync(Buffer.concat([Buffer.from(absDir + path.sep), raw]));
      } catch {
        return null;
      }
    }
  } catch {
    /* the directory went away */
  }
  return null;
}

/**
 * Visits the channel-level entries only: everything but the contents of `tasks/<id>/` folders
 * (the names directly in `tasks/` are not visited either, nor `tasks/` when it is a folder; a
 * `tasks` that is not a folder is visited: it is a problem of the channel, never followed). A
 * folder that cannot be listed (`tasks/` too) is told to `refused` with why.
 */
export function walkChannelLevel(root: string, visit: (rel: string, st: fs.Stats) => void, refused?: (rel: string, why: string) => void): void {
  let names: string[];
  try {
    names = fs.readdirSync(root).sort();
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith('.')) continue;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(path.join(root, name));
    } catch {
      continue;
    }
    if (name === 'tasks' && st.isDirectory()) {
      const why = refused ? unlistable(path.join(root, name)) : null;
      if (why !== null) refused?.(name, why);
      continue;
    }
    visit(name, st);
    if (st.isDirectory()) {
      walkChannel(
        path.join(root, name),
        (rel, s) => {
          if (!rel.includes('/')) visit(`${name}/${rel}`, s);
        },
        (rel, why) => refused?.(rel ? `${name}/${rel}` : name, why),
      );
    }
  }
}

/** One order folder's listing: the folder's own lstat and its entries. */
export interface FolderListing {
  /** lstat of `tasks/<dir>` itself (not followed). */
  readonly self: fs.Stats;
  /** Entries directly in it, names not starting with `.`, sorted by name; empty when `self` is not a directory. */
  readonly entries: readonly { readonly rel: string; readonly abs: string; readonly st: fs.Stats }[];
  /** Why its entries are not read (not listable, over MAX_FOLDER_ENTRIES), when so: the folder is one problem row. */
  readonly refused?: string;
  /** A name the folder listed was gone by its lstat (a file replaced by unlink, then rename, caught between the two). */
  readonly vanished?: true;
}

/**
 * Lists `tasks/<dir>/` without reading content: the folder's lstat, then each entry's lstat
 * in name order (names starting with `.` skipped; a name that is not valid UTF-8 is listed by
 * its bytes, see lstatUndecodable). Null when the folder is gone, or when `tasks/` itself is not
 * a folder (a symlink there is never followed). Never throws for content.
 * The same listing passOrder reads, and the one the indexer's looks compare (stat identities).
 */
export function listOrderFolder(root: string, dir: string): FolderListing | null {
  if (!isRealDir(path.join(root, 'tasks'))) return null;
  const relDir = `tasks/${dir}`;
  const absDir = path.join(root, 'tasks', dir);
  let self: fs.Stats;
  try {
    self = fs.lstatSync(absDir);
  } catch {
    // Gone, or a name that is not valid UTF-8 (then reported: not a safe order id).
    const st = dir.includes('\uFFFD') ? lstatUndecodable(path.join(root, 'tasks'), dir) : null;
    if (!st) return null;
    self = st;
  }
  if (!self.isDirectory()) return { self, entries: [] };
  const listed = listCapped(absDir, MAX_FOLDER_ENTRIES);
  if ('refused' in listed) return { self, entries: [], refused: listed.refused };
  const names = listed.names;
  const entries: { rel: string; abs: string; st: fs.Stats }[] = [];
  let vanished = false;
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const rel = `${relDir}/${name}`;
    // A name readdir gives has no '/' and is never '.' or '..': joined as is to the joined folder.
    const abs = `${absDir}/${name}`;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(abs);
    } catch (e) {
      // Vanished, or a name that is not valid UTF-8: listed by its bytes, read as unreadable.
      const undecodable = name.includes('\uFFFD') ? lstatUndecodable(absDir, name) : null;
      if (!undecodable) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') vanished = true;
        continue;
      }
      st = undecodable;
    }
    entries.push({ rel, abs, st });
  }
  return vanished ? { self, entries, vanished } : { self, entries };
}

/**
 * The entry for a path already lstat'ed, reading the content of small regular files. Its arrival
 * is `arrivalMs`, by default its ctime (the index's steady clock may put it elsewhere:
 * steady-clock.ts). `abs`: its absolute path when the caller has it (else `root` joined to `rel`).
 */
export function entryFromStat(root: string, rel: string, st: fs.Stats, arrivalMs: number = st.ctimeMs, abs?: string): ChannelEntry {
  if (st.isSymbolicLink()) return { path: rel, type: 'symlink', size: st.size, arrivalMs, bytes: null };
  if (st.isDirectory()) return { path: rel, type: 'dir', size: 0, arrivalMs, bytes: null };
  if (!st.isFile()) return { path: rel, type: 'other', size: st.size, arrivalMs, bytes: null };
  if (st.size > MAX_RECORD_BYTES) return { path: rel, type: 'file', size: st.size, arrivalMs, bytes: null };
  // One byte more than lstat said, to notice a file that grew since (capped just past the limit).
  const bytes = readCapped(abs ?? path.join(root, rel), Math.min(st.size, MAX_RECORD_BYTES) + 1);
  const size = bytes && bytes.length > st.size ? bytes.length : st.size;
  return { path: rel, type: 'file', size, arrivalMs, bytes };
}

/**
 * Walks the channel at `root` and returns every entry claimboard may read, with bytes for
 * regular files up to 1 MiB; lists directories as entries so that `tasks/<id>`
 * without order.json can be reported. Throws ChannelUnreadableError when `root` is not a
 * readable channel; never throws for content inside it.
 */
export function readChannel(root: string): ChannelEntry[] {
  assertChannelRoot(root);
  const out: ChannelEntry[] = [];
  const at = new Map<string, number>();
  walkChannel(
    root,
    (rel, st) => {
      if (st.isDirectory()) at.set(rel, out.length);
      out.push(entryFromStat(root, rel, st));
    },
    (rel, why) => {
      const i = at.get(rel);
      const e = i === undefined ? undefined : out[i];
      if (e) out[i as number] = { ...e, unread: why };
    },
  );
  return out;
}
