import 'server-only';
/**
 * Folder events as hints: one inotify watch per watched directory through
 * node's fs.watch, nothing kept per file. The indexer decides which directories to watch (the
 * channel level, `tasks/`, and the folders of orders not finished); everything else, and every
 * dropped event, is found by its periodic looks (the truth).
 *
 * Why not @parcel/watcher: its inotify backend keeps a tree of every file below the
 * root in native memory and crawls it on subscribe; at 100,000 order folders (690,000 entries)
 * that was ~330 MB and 13 s, against a 400 MB budget for the whole server.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Watches directories of a channel and reports changed paths relative to its root. */
export class FolderWatch {
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private failed = false;
  /** How many watches were held when the system last refused one for want of watches (ENOSPC), or null. */
  private fullAt: number | null = null;

  /**
   * @param root the channel root (absolute or relative to the working directory)
   * @param onChange called with the channel-relative path (`/`-separated) of an entry that may
   *   have changed; for an event without a name, or a watch that failed, the directory itself
   * @param onFailure called once when the system refuses a watch (e.g. ENOSPC: out of inotify
   *   watches), with the reason; the looks still find every change, later
   */
  constructor(
    private readonly root: string,
    private readonly onChange: (rel: string) => void,
    private readonly onFailure: (why: string) => void = () => {},
  ) {}

  /** Number of directories watched. */
  get size(): number {
    return this.watchers.size;
  }

  /** The directories watched, sorted ('' is the root). */
  list(): string[] {
    return [...this.watchers.keys()].sort();
  }

  /** Whether `relDir` ('' for the root) is watched. */
  has(relDir: string): boolean {
    return this.watchers.has(relDir);
  }

  /**
   * Starts watching `relDir` ('' for the root); returns true when a new watch was added (the
   * caller should look at the directory once more: a change between its last look and the
   * watch produced no event). No-op (false) when already watched or the directory is gone.
   */
  watch(relDir: string): boolean {
    if (this.watchers.has(relDir)) return false;
    // Out of inotify watches: not asked again until one of ours is given back (each refusal
    // costs an exception, and 100,000 of them took seconds at a million orders).
    if (this.fullAt !== null && this.watchers.size >= this.fullAt) return false;
    let w: fs.FSWatcher;
    try {
      w = fs.watch(path.join(this.root, relDir), { persistent: false }, (_event, name) => {
        this.onChange(name ? (relDir ? `${relDir}/${name}` : String(name)) : relDir);
      });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC') this.fullAt = this.watchers.size;
      if (code !== 'ENOENT' && code !== 'ENOTDIR' && !this.failed) {
        this.failed = true;
        this.onFailure(`cannot watch ${relDir || '.'}: ${code ?? String(e)}`);
      }
      return false;
    }
    w.on('error', () => {
      // The directory went away or was replaced: drop the watch and have it looked at.
      this.unwatch(relDir);
      this.onChange(relDir);
    });
    this.watchers.set(relDir, w);
    return true;
  }

  /** Stops watching `relDir`. */
  unwatch(relDir: string): void {
    const w = this.watchers.get(relDir);
    if (!w) return;
    this.watchers.delete(relDir);
    w.close();
  }

  /** Stops every watch. */
  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}
