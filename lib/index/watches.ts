import 'server-only';
/**
 * Which directories the indexer watches (folder-watch.ts does the watching): the channel root,
 * agents/, retirements/, grants/, tasks/, and every order folder whose order is not finished
 * (Done lane), when the looks suffice. Events are hints: a watch that fails, or none at all
 * (`watch: false`), only makes the looks find the change later.
 */
import path from 'node:path';
import { FolderWatch } from './folder-watch';

/** The channel-level directories watched. */
const CHANNEL_DIRS = ['', 'agents', 'retirements', 'grants', 'tasks'] as const;

export interface WatchPolicy {
  /** Whether an order folder should be watched (its order is not finished). */
  readonly wants: (dir: string) => boolean;
  /** Whether an order folder was there at its last pass. */
  readonly knows: (dir: string) => boolean;
  /** Every order folder there at its last pass. */
  readonly dirs: () => Iterable<string>;
}

export class OrderWatches {
  private watcher: FolderWatch | null = null;

  constructor(private readonly policy: WatchPolicy) {}

  /** Whether folder events are subscribed. */
  get active(): boolean {
    return this.watcher !== null;
  }

  /** The directories watched now, sorted ('' is the channel root); empty without folder events. */
  list(): string[] {
    return this.watcher?.list() ?? [];
  }

  /**
   * Subscribes: `onChange` gets the channel-relative path of what may have changed, `onFailure`
   * why a watch was refused. Watches the channel level and every order folder the policy wants.
   */
  subscribe(root: string, onChange: (rel: string) => void, onFailure: (why: string) => void): void {
    this.watcher = new FolderWatch(path.resolve(root), onChange, onFailure);
    this.watchChannelDirs();
    for (const d of this.policy.dirs()) if (this.policy.wants(d)) this.watcher.watch(`tasks/${d}`);
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

  /** Every order folder's watch made again (tasks/ itself changed). */
  watchOrderFoldersAgain(): void {
    const w = this.watcher;
    if (!w) return;
    for (const rel of w.list()) if (rel.startsWith('tasks/')) w.unwatch(rel);
    for (const d of this.policy.dirs()) if (this.policy.wants(d)) w.watch(`tasks/${d}`);
  }

  /** Watches or stops watching one order folder as the policy says; true when a new watch began (look at the folder once more). */
  update(dir: string): boolean {
    const w = this.watcher;
    if (!w) return false;
    const rel = `tasks/${dir}`;
    if (this.policy.knows(dir) && this.policy.wants(dir)) return w.watch(rel);
    w.unwatch(rel);
    return false;
  }

  /** Stops watching an order folder that is gone. */
  unwatch(dir: string): void {
    this.watcher?.unwatch(`tasks/${dir}`);
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
  }
}
