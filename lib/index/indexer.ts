import 'server-only';
/**
 * The indexer: keeps the SQLite index equal to what the pure core derives from the folder, one
 * order folder at a time. This class is what the serve command and the tests hold: start, stop,
 * requests, and what the index says of itself. The work is the pipeline's (pipeline.ts), which
 * owns the parts and their wiring; ownership runs one way, the indexer over the pipeline over its
 * parts, and a part reaches the others only through the pipeline it is given:
 *
 * - looks.ts (FolderLooks): what changed on disk. Folder events (watches.ts: the channel
 *   level, `tasks/`, and the folders of orders not finished) are hints; the quick look every
 *   `rescanMs` (each folder's own stat identity) and the sweep (every entry, a slice at a time)
 *   are the truth; a file that just vanished is believed a moment longer (the vanish grace).
 * - passes.ts, order-pass.ts, worker-pool.ts: a folder is read again only when its listing
 *   changed; its files are read fresh, signatures checked against remembered outcomes first,
 *   so re-deriving costs no cryptography for files that did not change. A cold index of a
 *   large folder reads on every core and shows the board before it verifies (cold-pass.ts).
 * - channel-level.ts (ChannelLevel): the roster, retirements, pins and ledger files.
 * - facts.ts (ChannelFacts): the channel-wide facts of a card (the stale reason from the
 *   holder's latest arrival anywhere, dependencies) from small in-memory maps, so a change
 *   re-derives only its folder, the orders that depend on it, and the stale orders of an agent
 *   whose latest arrival moved (settle).
 * - store.ts (IndexStore): every SQL statement the indexer runs; meta.ts: the meta keys.
 *   index-parts.ts: the parts made from one database, replaced as one by a rebuild or a resync.
 * - scheduler.ts (Scheduler): the timers and the pending work, one state. Staleness moves with
 *   the clock: each card knows when it may change with no file changing (`next_ms`); the
 *   `stale` timer re-derives those when the time comes.
 * - guard.ts (UpdateGuard): the faults an update can meet (failed writes, the database swapped,
 *   the folder gone, clock steps).
 * - first-index.ts: the first index at start and after a rebuild (what memory keeps loaded,
 *   the folders that changed read, on every core when cold).
 * One process writes the index; request handlers open it read-only. Its options are
 * indexer-options.ts.
 */
import { assertChannelRoot } from './disk/read-channel';
import type { Problem } from '../ledger/channel';
import type { Card } from '../ledger/derive';
import { firstIndex } from './writer/first-index';
import type { IndexHealth } from './health';
import { Pipeline } from './writer/pipeline';
import type { IndexerOptions } from './indexer-options';

export type { IndexerOptions } from './indexer-options';

export class Indexer {
  private readonly p: Pipeline;

  constructor(private readonly opts: IndexerOptions) {
    this.p = new Pipeline(opts);
  }

  /** Whether the board is current: `degraded` while writes into the index fail (retried every second), the folder is missing or the index is rebuilt. */
  get health(): IndexHealth {
    return this.p.guard.health;
  }

  /** The cards and problems as stored now (tests, the serve command). */
  get state(): { readonly orders: Card[]; readonly problems: Problem[] } {
    return this.p.parts.store.cardsAndProblems();
  }

  /** The directories watched now, sorted ('' is the channel root); empty without folder events. */
  get watched(): string[] {
    return this.p.watches.list();
  }

  /** What memory keeps: the orders not finished and the live folders (a finished order's are read from the index). */
  get memory(): { readonly orders: number; readonly folders: number } {
    return { orders: this.p.parts.facts.liveCount, folders: this.p.parts.looks.liveSize };
  }

  /**
   * Whether a warm start's look at the finished orders' folders is still under way (the sweep's
   * first slices, looks.ts), or what it found is not stored yet (pending, or a folder that lost a
   * file waiting out the vanish grace).
   */
  get finishedPending(): boolean {
    const looks = this.p.parts.looks;
    return looks.finishedPending || this.p.timers.hasPaths || looks.grace.nextEnd() !== null;
  }

  /** Signatures verified (by this process) since start. */
  get verifiedCount(): number {
    return this.p.verified;
  }

  /** Whether the first index was a warm start (null before it is done). */
  private warm: boolean | null = null;
  private watching = false;

  /**
   * First index: loads what the database remembers, stats the whole folder, re-reads only the
   * folders in which something changed (all of them on a cold start), derives and stores; then
   * watches (`watch`), unless `watchLater`: then the caller calls `watch` (a hub shows its
   * other channels' boards first). Throws ChannelUnreadableError when the root is not a channel.
   */
  async start(opts: { readonly watchLater?: boolean } = {}): Promise<void> {
    const p = this.p;
    assertChannelRoot(this.opts.root);
    p.guard.begin();
    this.warm = await firstIndex(p);
    p.timers.staleChanged();
    if (!opts.watchLater) this.watch();
  }

  /**
   * Begins the folder events and the periodic looks, once, after the first index. The look that
   * follows subscribing finds what changed since the first index, however long ago it was.
   */
  watch(): void {
    const p = this.p;
    if (this.watching || this.warm === null || p.timers.stopped) return;
    this.watching = true;
    if (this.opts.watch !== false) p.subscribe();
    // A warm start trusted the folders' own stat identities: the first sweep starts now.
    p.timers.startLooks(this.warm ? 0 : undefined);
  }

  /** Stops watching and timers. The database given stays open (its owner closes it); one this indexer opened in a rebuild is closed. */
  async stop(): Promise<void> {
    const p = this.p;
    p.timers.stop();
    p.watches.close();
    await p.guard.settled();
    if (p.parts.store.db !== this.opts.db) p.parts.store.db.close();
  }

  /** Asks for an update of `rel` (null: a full look at everything) soon. */
  request(rel: string | null): void {
    this.p.request(rel);
  }

  /** Processes the pending work now (paths, a full look, or a quick look): re-reads the folders where something changed. Synchronous. */
  pump(): void {
    this.p.pump();
  }
}
