import 'server-only';
/**
 * Which directories the indexer watches (folder-watch.ts does the watching): the channel root,
 * agents/, retirements/, grants/, tasks/, and the folders of orders not finished (Done lane), at
 * most `budget` of them: those memory loaded first, then each folder a look finds changed, in
 * place of the least recently changed one (when the system has no inotify watches left, the ones
 * it granted stay as they are). Events are hints: a watch that
 * fails, a folder past the budget, or no watching at all (`watch: false`) only makes the looks
 * find the change later: a poll of the unwatched unfinished orders' folders, a slice every
 * 200 ms (scheduler.ts, looks.ts pollSlice), and the quick look of every folder.
 *
 * Why a budget: a watch costs about 1.5 KB of this process's memory (measured with
 * 20,000) and one of the user's inotify watches, which Syncthing on the same machine needs too
 * (fs.inotify.max_user_watches; docs/deploy.md). A generated channel of a million orders keeps
 * 301,000 unfinished: 450 MB, and past this machine's limit. A fleet's working set (the orders
 * whose folders are being written) is far smaller, and a folder a look finds changed is
 * watched from then on, the least recently changed one giving its watch up.
 */
import path from 'node:path';
import { FolderWatch } from '../disk/folder-watch';

/** The channel-level directories watched. */
const CHANNEL_DIRS = ['', 'agents', 'retirements', 'grants', 'tasks'] as const;

/** Order folders watched at most, by default (`--max-watches`): about 100 MB of watches. */
export const DEFAULT_WATCH_BUDGET = 65_536;

export interface WatchPolicy {
  /** Whether an order folder should be watched (its order is not finished). */
  readonly wants: (dir: string) => boolean;
  /** Whether an order folder was there at its last pass. */
  readonly knows: (dir: string) => boolean;
  /** Every order folder there at its last pass whose order is not finished (or that holds none). */
  readonly dirs: () => Iterable<string>;
}

export class OrderWatches {
  private watcher: FolderWatch | null = null;
  /** The order folders watched, least recently changed first (a Map keeps insertion order). */
  private readonly recent = new Map<string, true>();

  /**
   * @param policy which order folders are wanted
   * @param budget order folders watched at most (the channel-level directories are not counted)
   */
  constructor(
    private readonly policy: WatchPolicy,
    private readonly budget: number = DEFAULT_WATCH_BUDGET,
  ) {}

  /** Whether folder events are subscribed. */
  get active(): boolean {
    return this.watcher !== null;
  }

  /** The directories watched now, sorted ('' is the channel root); empty without folder events. */
  list(): string[] {
    return this.watcher?.list() ?? [];
  }

  /** Whether an order folder is watched now. */
  watching(dir: string): boolean {
    return this.recent.has(dir);
  }

  /** How many order folders are watched now. */
  get orderFolders(): number {
    return this.recent.size;
  }

  /**
   * Subscribes: `onChange` gets the channel-relative path of what may have changed, `onFailure`
   * why a watch was refused. Watches the channel level and the order folders the policy wants,
   * up to the budget.
   */
  subscribe(root: string, onChange: (rel: string) => void, onFailure: (why: string) => void): void {
    this.watcher = new FolderWatch(path.resolve(root), onChange, onFailure);
    this.watchChannelDirs();
    this.watchWanted(this.policy.dirs());
  }

  /** The channel root, agents/, retirements/, grants/ and tasks/ watched again (one was replaced, perhaps). */
  watchChannelDirs(): void {
    const w = this.watcher;
    if (!w) return;
    for (const d of CHANNEL_DIRS) {
      w.unwatch(d);
      w.watch(d);
    }
  }

  /** Every order folder's watch made again (tasks/ itself changed): the ones watched before, then others wanted, up to the budget. */
  watchOrderFoldersAgain(): void {
    const w = this.watcher;
    if (!w) return;
    const before = [...this.recent.keys()];
    for (const d of before) w.unwatch(`tasks/${d}`);
    this.recent.clear();
    this.watchWanted(before);
    this.watchWanted(this.policy.dirs());
  }

  /**
   * After a pass of `dir` (it changed): watches it, as the most recently changed, when the policy
   * wants it (giving the least recently changed folder's watch up when the budget is spent), or
   * stops watching it. True when a new watch began (look at the folder once more: a change
   * between the pass and the watch produced no event).
   */
  update(dir: string): boolean {
    const w = this.watcher;
    if (!w) return false;
    if (!(this.policy.knows(dir) && this.policy.wants(dir))) {
      this.unwatch(dir);
      return false;
    }
    // (A watch the system dropped, its folder replaced, is in `recent` no more than a moment.)
    if (this.recent.delete(dir) && w.has(`tasks/${dir}`)) {
      this.recent.set(dir, true);
      return false;
    }
    if (this.budget <= 0) return false;
    if (this.recent.size >= this.budget) {
      const oldest = this.recent.keys().next();
      if (!oldest.done) this.unwatch(oldest.value);
    }
    return this.add(dir);
  }

  /** Stops watching an order folder (gone, or finished). */
  unwatch(dir: string): void {
    this.recent.delete(dir);
    this.watcher?.unwatch(`tasks/${dir}`);
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
    this.recent.clear();
  }

  /** Watches the wanted folders of `dirs` not watched yet, while the budget lasts. */
  private watchWanted(dirs: Iterable<string>): void {
    for (const d of dirs) {
      if (this.recent.size >= this.budget) return;
      if (!this.recent.has(d) && this.policy.wants(d)) this.add(d);
    }
  }

  private add(dir: string): boolean {
    const ok = this.watcher?.watch(`tasks/${dir}`) ?? false;
    if (ok) this.recent.set(dir, true);
    return ok;
  }
}
