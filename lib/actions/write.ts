import 'server-only';
/**
 * The only code that writes into a channel folder (LEDGER.md §1.1, §8): atomically, into the
 * acting operator's own paths, never over another writer's file, never a delete.
 *
 * A new file is written to a temp file with a leading dot in the same directory, fsynced, then
 * hard-linked into place (link fails if anything is already there: nothing is ever replaced by
 * accident) and the temp name removed; the directory is fsynced. A file the operator already
 * owns (its reopen or ack, its ledger) is replaced by rename over it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sha256HexOfText } from '../ledger/json';
import { splitLines } from '../ledger/ledger-file';

/** Why a write did not happen. Nothing was left behind in any case but a leftover dot temp file on a crash. */
export class WriteError extends Error {
  constructor(
    readonly code: 'exists' | 'moved_on' | 'io',
    message: string,
  ) {
    super(message);
  }
}

function tempBeside(abs: string): string {
  return path.join(path.dirname(abs), `.${path.basename(abs)}.${randomBytes(6).toString('hex')}.tmp`);
}

function fsyncDir(dir: string): void {
  let fd: number | null = null;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    /* some filesystems cannot fsync a directory; the rename is still atomic */
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

function writeTemp(abs: string, bytes: Uint8Array): string {
  const tmp = tempBeside(abs);
  let fd: number | null = null;
  try {
    fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o644);
    let off = 0;
    while (off < bytes.length) off += fs.writeSync(fd, bytes, off, bytes.length - off);
    fs.fsyncSync(fd);
  } catch (e) {
    if (fd !== null) fs.closeSync(fd);
    fd = null;
    fs.rmSync(tmp, { force: true });
    throw new WriteError('io', `cannot write ${path.basename(abs)}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
  return tmp;
}

/**
 * Creates the missing folders above `abs` one level at a time, so that the disk's real reason
 * surfaces (a recursive mkdir reports ENOENT on a read-only file system). Returns the folders it
 * created, outermost first, for `removeCreated` to take back when the write then fails: a failed
 * write must not leave an empty `tasks/<id>/` behind (the board would show it as a problem).
 */
function makeParents(abs: string): string[] {
  const missing: string[] = [];
  for (let d = path.dirname(abs); !fs.existsSync(d); d = path.dirname(d)) {
    missing.unshift(d);
    if (path.dirname(d) === d) break;
  }
  const created: string[] = [];
  for (const d of missing) {
    try {
      fs.mkdirSync(d);
      created.push(d);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue; // made by another writer meanwhile: not ours to take back
      removeCreated(created);
      throw new WriteError('io', `cannot create ${path.dirname(abs)}: ${code ?? String(e)}`);
    }
  }
  return created;
}

/** Removes the folders this write created, innermost first, while they are empty; nothing else. */
function removeCreated(created: readonly string[]): void {
  for (const d of [...created].reverse()) {
    try {
      fs.rmdirSync(d);
    } catch {
      return; // another writer put something there: it stays
    }
  }
}

/**
 * With the channel `root`: refuses when a folder between it and `abs` is a symlink or not a
 * folder (a symlinked `retirements/` or `tasks/<id>/` would take the write out of the channel).
 */
function assertPlainFolders(root: string | undefined, abs: string): void {
  if (root === undefined) return;
  const rel = path.relative(root, path.dirname(abs));
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new WriteError('io', `${path.basename(abs)} is outside the channel; nothing was written`);
  let cur = root;
  for (const part of rel ? rel.split(path.sep) : []) {
    cur = path.join(cur, part);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(cur);
    } catch {
      return; // missing: created as a plain folder
    }
    if (st.isSymbolicLink() || !st.isDirectory()) {
      throw new WriteError('exists', `${path.relative(root, cur)} is ${st.isSymbolicLink() ? 'a symlink' : 'not a folder'}; nothing is written through it`);
    }
  }
}

/**
 * Writes `bytes` at `abs`, which must not exist (LEDGER.md §8: "refuse if a file it did not
 * write is in the way"). Creates missing parent directories (and removes them again if the write
 * fails). Throws WriteError('exists') when something is there, WriteError('io') when the disk
 * refuses (full, read-only, ...). With `root`, never writes through a symlinked folder below it.
 */
export function writeNewFile(abs: string, bytes: Uint8Array, root?: string): void {
  assertPlainFolders(root, abs);
  const created = makeParents(abs);
  if (fs.existsSync(abs) || isSymlink(abs)) throw new WriteError('exists', `${path.basename(abs)} already exists`);
  let tmp: string;
  try {
    tmp = writeTemp(abs, bytes);
  } catch (e) {
    removeCreated(created);
    throw e;
  }
  try {
    fs.linkSync(tmp, abs);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    removeCreated(created);
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new WriteError('exists', `${path.basename(abs)} appeared while writing; nothing was written`);
    throw new WriteError('io', `cannot place ${path.basename(abs)}: ${code ?? String(e)}`);
  }
  fs.rmSync(tmp, { force: true });
  fsyncDir(path.dirname(abs));
}

function isSymlink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Replaces the operator's own file at `abs` (or creates it). The caller has checked that what
 * is there was written by this operator. Refuses a symlink in the way.
 */
export function replaceOwnFile(abs: string, bytes: Uint8Array, root?: string): void {
  assertPlainFolders(root, abs);
  replaceVia(abs, bytes, null);
}

/**
 * replaceOwnFile, with `stillAsRead` checked after the temp file is written and just before it is
 * renamed into place: when it says the file moved on, the temp file is removed and nothing changes.
 */
function replaceVia(abs: string, bytes: Uint8Array, stillAsRead: (() => WriteError | null) | null): void {
  if (isSymlink(abs)) throw new WriteError('exists', `${path.basename(abs)} is a symlink; not followed, not replaced`);
  const created = makeParents(abs);
  let tmp: string;
  try {
    tmp = writeTemp(abs, bytes);
  } catch (e) {
    removeCreated(created);
    throw e;
  }
  const moved = stillAsRead?.() ?? null;
  if (moved) {
    fs.rmSync(tmp, { force: true });
    throw moved;
  }
  try {
    fs.renameSync(tmp, abs);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    removeCreated(created);
    throw new WriteError('io', `cannot place ${path.basename(abs)}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  fsyncDir(path.dirname(abs));
}

/**
 * The hash a new ledger line's `prev` must carry: hex SHA-256 of the file's last line, '' when
 * the file is missing or empty (LEDGER.md §3.2, §8).
 */
export function ledgerPrevOf(abs: string): { readonly prev: string; readonly lastLine: string | null } {
  let text: string;
  try {
    text = fs.readFileSync(abs, 'utf8');
  } catch {
    return { prev: '', lastLine: null };
  }
  const lines = splitLines(text);
  const last = lines[lines.length - 1];
  return last === undefined ? { prev: '', lastLine: null } : { prev: sha256HexOfText(last), lastLine: last };
}

/**
 * Appends `line` (no newline) to the operator's ledger file at `abs`, atomically (the whole
 * file rewritten through a temp file and renamed), refusing with WriteError('moved_on') when the
 * file's last line no longer hashes to `expectedPrev`.
 */
export function appendLedgerLine(abs: string, line: string, expectedPrev: string, root?: string): void {
  assertPlainFolders(root, abs);
  if (isSymlink(abs)) throw new WriteError('exists', `${path.basename(abs)} is a symlink; not followed`);
  const read = (): string | WriteError => {
    try {
      return fs.readFileSync(abs, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return code === 'ENOENT' ? '' : new WriteError('io', `cannot read ${path.basename(abs)}: ${code ?? String(e)}`);
    }
  };
  const text = read();
  if (text instanceof WriteError) throw text;
  const lines = splitLines(text);
  const last = lines[lines.length - 1];
  const prev = last === undefined ? '' : sha256HexOfText(last);
  if (prev !== expectedPrev) throw new WriteError('moved_on', `${path.basename(abs)} has a new line since this action was signed: sign again`);
  const body = (text.length > 0 && !text.endsWith('\n') ? text + '\n' : text) + line + '\n';
  // Another process appending meanwhile (a CLI action beside the server) would be lost by the
  // rename: the file is read again just before it, and a change refuses (a window of a rename
  // remains; one writer per path makes it the same operator's own second action).
  replaceVia(abs, new TextEncoder().encode(body), () => {
    const now = read();
    return now === text ? null : new WriteError('moved_on', `${path.basename(abs)} changed while writing; nothing was written: sign again`);
  });
}
