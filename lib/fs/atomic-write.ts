import 'server-only';
/**
 * The only code that writes files into a channel folder. Its two callers:
 * lib/actions/write.ts (operator actions, from the page and the CLI) and lib/demo/write.ts (the
 * embedded demo's simulated fleet, and the tests' channels). Never a delete: the demo's own
 * claim and heartbeat removals are its own code.
 *
 * Every write goes through a temp file with a leading dot in the target's directory (every
 * reader skips dot files), written whole and fsynced, then put in place:
 * - `new`: hard-linked into place. link fails when anything is at the path (a file, a symlink,
 *   dangling or not), so another writer's file is never replaced, even one that appears between
 *   the check and the link. Only the demo, alone on its paths, may fall back to check-then-rename
 *   where the file system has no hard links (`withoutHardLinks`).
 * - `replace`: renamed over the path. The caller has checked the file there is its own; a symlink
 *   there is refused, never followed nor replaced.
 * The directory is then fsynced (best effort). Missing folders are created one level at a time
 * and removed again when the write fails. On any failure the folder is as it was, but for a dot
 * temp file a crash may leave. A write can be staged (its temp file written) and placed later
 * (`stageAtomic`), so that a writer of several files refuses before putting any in place.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Why a write did not happen. Nothing was left behind in any case but a leftover dot temp file on a crash. */
export class WriteError extends Error {
  constructor(
    /** `exists`: something is in the way; `moved_on`: the file changed since it was read; `io`: the disk refused. */
    readonly code: 'exists' | 'moved_on' | 'io',
    message: string,
  ) {
    super(message);
  }
}

/** How the written file is put in place (see the header). */
export type Placement = 'new' | 'replace';

/** Options of {@link writeAtomic}. */
export interface AtomicWriteOptions {
  /** The channel root: refuses a folder between it and the target that is a symlink or not a folder, or a target outside it. */
  readonly root?: string;
  /**
   * Called after the temp file is written, just before it is put in place: a WriteError it
   * returns refuses the write (the temp file is removed, nothing changes).
   */
  readonly beforePlace?: () => WriteError | null;
  /**
   * `new` on a file system without hard links (link fails with EPERM, ENOTSUP or EXDEV):
   * `refuse` (default) is a WriteError('io'); `check-then-rename` renames when nothing is there,
   * which races only with another writer of the same path (for a writer alone on its paths).
   */
  readonly withoutHardLinks?: 'refuse' | 'check-then-rename';
}

const errnoOf = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? String(e);

function tempBeside(abs: string): string {
  return path.join(path.dirname(abs), `.${path.basename(abs)}.${randomBytes(6).toString('hex')}.tmp`);
}

/** fsyncs a directory, so that a rename or link in it survives a crash; best effort. */
export function fsyncDir(dir: string): void {
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
    throw new WriteError('io', `cannot write ${path.basename(abs)}: ${errnoOf(e)}`);
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
 * With the channel `root`: throws WriteError('exists') when a folder between it and `abs` is a
 * symlink or not a folder (a symlinked `retirements/` or `tasks/<id>/` would take the write out
 * of the channel), WriteError('io') when `abs` is outside it. Without `root`: nothing. For a
 * caller that reads the file before writing it (a ledger append); writeAtomic checks it itself.
 */
export function assertPlainFolders(root: string | undefined, abs: string): void {
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

/** True when `p` is a symlink (dangling or not); false when it is anything else or missing. */
export function isSymlink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Puts the written temp file in place as a new file; on failure removes it and throws. */
function placeNew(tmp: string, abs: string, withoutHardLinks: 'refuse' | 'check-then-rename'): void {
  try {
    fs.linkSync(tmp, abs);
    return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const noLinks = code === 'EPERM' || code === 'ENOTSUP' || code === 'EXDEV';
    if (!(noLinks && withoutHardLinks === 'check-then-rename')) {
      fs.rmSync(tmp, { force: true });
      if (code === 'EEXIST') throw new WriteError('exists', `${path.basename(abs)} appeared while writing`);
      throw new WriteError('io', `cannot place ${path.basename(abs)}: ${code ?? String(e)}`);
    }
  }
  if (fs.existsSync(abs) || isSymlink(abs)) {
    fs.rmSync(tmp, { force: true });
    throw new WriteError('exists', `${path.basename(abs)} appeared while writing`);
  }
  try {
    fs.renameSync(tmp, abs);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new WriteError('io', `cannot place ${path.basename(abs)}: ${errnoOf(e)}`);
  }
}

/** A write whose temp file is written and fsynced beside its target, not yet in place ({@link stageAtomic}). */
export interface StagedWrite {
  /** Why putting it in place now would be refused (something in the way, `beforePlace`), or null. Changes nothing. */
  check(): WriteError | null;
  /**
   * Puts it in place, checking first; then fsyncs its directory. Throws WriteError having changed
   * nothing (its temp file and the folders it created are removed).
   */
  place(): void;
  /** Removes its temp file and the folders it created while they are empty; never throws. Several are discarded in the reverse order of staging. */
  discard(): void;
}

/**
 * The first half of {@link writeAtomic}: checks the target and writes the temp file, so that a
 * writer of several files can write every temp file, check every target, and only then put them
 * in place one after another (lib/actions/apply.ts): a full disk or a file in the way then
 * refuses before any file is in place. Throws WriteError as writeAtomic does, having changed nothing.
 */
export function stageAtomic(abs: string, bytes: Uint8Array, placement: Placement, opts: AtomicWriteOptions = {}): StagedWrite {
  assertPlainFolders(opts.root, abs);
  if (placement === 'replace' && isSymlink(abs)) throw new WriteError('exists', `${path.basename(abs)} is a symlink; not followed, not replaced`);
  const created = makeParents(abs);
  if (placement === 'new' && (fs.existsSync(abs) || isSymlink(abs))) {
    removeCreated(created);
    throw new WriteError('exists', `${path.basename(abs)} already exists`);
  }
  let tmp: string;
  try {
    tmp = writeTemp(abs, bytes);
  } catch (e) {
    removeCreated(created);
    throw e;
  }
  let done = false;
  const discard = () => {
    if (done) return;
    done = true;
    fs.rmSync(tmp, { force: true });
    removeCreated(created);
  };
  const check = (): WriteError | null => {
    if (placement === 'replace' && isSymlink(abs)) return new WriteError('exists', `${path.basename(abs)} is a symlink; not followed, not replaced`);
    if (placement === 'new' && (fs.existsSync(abs) || isSymlink(abs))) return new WriteError('exists', `${path.basename(abs)} appeared while writing`);
    return opts.beforePlace?.() ?? null;
  };
  return {
    check,
    discard,
    place: () => {
      if (done) throw new Error('a staged write is placed or discarded once');
      const refused = check();
      if (refused) {
        discard();
        throw refused;
      }
      try {
        switch (placement) {
          case 'new':
            placeNew(tmp, abs, opts.withoutHardLinks ?? 'refuse');
            fs.rmSync(tmp, { force: true }); // the link's second name
            break;
          case 'replace':
            try {
              fs.renameSync(tmp, abs);
            } catch (e) {
              fs.rmSync(tmp, { force: true });
              throw new WriteError('io', `cannot place ${path.basename(abs)}: ${errnoOf(e)}`);
            }
            break;
        }
      } catch (e) {
        done = true;
        removeCreated(created);
        throw e;
      }
      done = true;
      fsyncDir(path.dirname(abs));
    },
  };
}

/**
 * Writes `bytes` at the absolute path `abs` atomically, placed as `placement` says (see the
 * header). Synchronous: when it returns, the file is in place and its directory fsynced.
 * Throws WriteError: `exists` when something is in the way (for `new`, any file or symlink at
 * `abs`; for `replace`, a symlink at `abs`; with `root`, a symlinked folder on the way), `io`
 * when the disk refuses (full, read-only, ...; the message names the errno), or what
 * `beforePlace` returns. Nothing is changed when it throws.
 */
export function writeAtomic(abs: string, bytes: Uint8Array, placement: Placement, opts: AtomicWriteOptions = {}): void {
  stageAtomic(abs, bytes, placement, opts).place();
}
