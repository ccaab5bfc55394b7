import 'server-only';
/**
 * A hub's channels at work: one Indexer per channel, each on its own index file, started as the
 * channel set finds channels and stopped as they leave, and the served-channel registry kept
 * (lib/hub/registry.ts). A channel's fault or rebuild stays in its own indexer and file: the
 * others go on. Nothing is deleted: a channel that leaves keeps its index file (it comes back
 * warm) and its registry entry (`gone`, with why).
 */
import fs from 'node:fs';
import { closeWriter, openWriter, type DB } from '../index/db';
import { Indexer } from '../index/indexer';
import type { IndexerOptions } from '../index/indexer-options';
import type { ChannelSpec } from './args';
import { ChannelSet, type Channel, type ChannelChanges } from './channel-set';
import { writeRegistry, type RegistryEntry } from './registry';
import { StartQueue } from './start-queue';
import { LookBudget } from '../index/writer/look-budget';

/**
 * The page cache of each channel's index writer once its first index is done, KiB (better-sqlite3's
 * default, 16 MB, stays for the first index's bulk load): ten channels at 16 MB could hold 160 MB.
 */
export const HUB_WRITER_CACHE_KIB = 4096;

/**
 * How long a channel's cold first index holds the looks of the channels already served, at most,
 * ms (LookBudget.hold). Rule: while a channel is indexed cold (tens of seconds at 10,000 orders
 * and more), the others' periodic looks (the quick look and the sweep, about a tenth of the core
 * its index runs on) wait, their folder events still taken as they come; after this long they
 * look again even while it goes on. Clock: the event loop's timers on this machine; it decides
 * only when the looks run.
 */
export const HUB_COLD_HOLD_MS = 60_000;

/** What a hub is given. */
export interface HubOptions {
  readonly specs: readonly ChannelSpec[];
  readonly parents: readonly string[];
  /** The registry file it keeps. */
  readonly registryFile: string;
  /** The index file of a channel's folder (a channel served alone before keeps its file). */
  readonly dbFileOf: (root: string) => string;
  /** stale_after of a channel's folder, ms. */
  readonly staleAfterMsOf: (root: string) => number;
  /** The configured operators of a channel, by its name. */
  readonly operatorsOf?: (name: string) => readonly string[];
  /** Order folders watched at most, for the whole hub (inotify's watches are per user): shared evenly among the channels served when each starts. */
  readonly maxWatches?: number;
  /** This machine's wall clock, ms (default Date.now): when a registry entry took its state; it decides nothing. */
  readonly now?: () => number;
  /** One line per event. */
  readonly log: (line: string) => void;
  /** What follows a channel's index beside its indexer (the serve's alerts), or none: made when its index file is open. */
  readonly followerOf?: (name: string, root: string, db: DB) => ChannelFollower | null;
  /** More of each Indexer's options (tests: no watching, a verifier). */
  readonly indexer?: Partial<Omit<IndexerOptions, 'root' | 'db' | 'staleAfterMs' | 'log'>>;
}

/** A channel being served: its index file open for writing and its indexer (started, or waiting its turn). */
/**
 * What follows one channel's index (a serve's alerts of that channel): told after each index
 * pass that changed it and of a rebuilt index file, started once its first index is done, stopped
 * before its index file is closed.
 */
export interface ChannelFollower {
  settled(): void;
  rebuilt(db: DB): void;
  start(): void;
  stop(): Promise<void>;
}

interface Served {
  readonly channel: Channel;
  readonly file: string;
  /** Set once its turn came. */
  db: DB | null;
  indexer: Indexer | null;
  follower?: ChannelFollower | null;
  /** Its start, once its turn came. */
  started: Promise<void> | null;
  /** Set when it left before or while starting: a start not begun does nothing. */
  left: boolean;
}

export class Hub {
  private readonly set: ChannelSet;
  private readonly served = new Map<string, Served>();
  private readonly entries = new Map<string, RegistryEntry>();
  private readonly queue = new StartQueue();
  /** The periodic looks of every channel's indexer paced together: about 5% of a core in all, as one channel's. */
  private readonly looks = new LookBudget();
  /** Index files whose indexer is stopping: a channel coming back to one waits for it. */
  private readonly stopping = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;
  /** Warm starts queued or under way. */
  private warmStarts = 0;
  /** Channels whose warm first index is done, not watching yet (warmStartDone). */
  private unwatched: Served[] = [];

  constructor(private readonly opts: HubOptions) {
    this.set = new ChannelSet(opts.specs, opts.parents);
    this.now = opts.now ?? Date.now;
  }

  /** The registry as last written (served and gone), in name order. */
  registry(): readonly RegistryEntry[] {
    return [...this.entries.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The indexer of a channel served now and started, or null. */
  indexerOf(name: string): Indexer | null {
    return this.served.get(name)?.indexer ?? null;
  }

  /**
   * Looks at the folders once (the first rescan), then every `rescanMs` on this machine's clock;
   * the interval decides only when to look. Resolves once the first channels started (each
   * through the start queue; a channel whose start failed is said and listed as gone).
   */
  async start(rescanMs: number): Promise<void> {
    this.rescan();
    this.timer = setInterval(() => {
      try {
        this.rescan();
      } catch (e) {
        // The channel set says what it cannot read; anything else is said here and looked at again next time.
        this.opts.log(`looking for channels failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }, rescanMs);
    this.timer.unref();
    await this.idle();
  }

  /** Resolves when no channel start is queued or running. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /**
   * Looks at every folder again (ChannelSet.rescan) and applies what changed: a channel that
   * left is stopped, with one line saying why, and listed as gone; a channel that arrived is
   * listed as served and queued to start. Notices (a folder not served, and why) are said once.
   * The registry is written when anything changed.
   */
  rescan(): ChannelChanges {
    const changes = this.set.rescan();
    const at = this.now();
    for (const n of changes.notices) this.opts.log(`${n.root}${n.name ? ` (${n.name})` : ''} is not served: ${n.reason}`);
    for (const r of changes.removed) {
      const s = this.served.get(r.channel.name);
      if (!s) continue;
      this.served.delete(r.channel.name);
      this.opts.log(`channel ${r.channel.name} (${r.channel.root}) is no longer served: ${r.why}; its cards leave the board, its index ${s.file} is kept`);
      this.entries.set(r.channel.name, { name: r.channel.name, root: r.channel.root, db: s.file, state: 'gone', why: r.why, since_ms: at });
      this.halt(s);
    }
    for (const c of changes.added) {
      const file = this.opts.dbFileOf(c.root);
      const s: Served = { channel: c, file, db: null, indexer: null, started: null, left: false };
      this.served.set(c.name, s);
      this.entries.set(c.name, { name: c.name, root: c.root, db: file, state: 'served', why: null, since_ms: at });
      const warm = fs.existsSync(file);
      // A warm start holds the other channels' looks from now until it is done (LookBudget.hold):
      // a few tenths of a second each. A cold one holds them while it runs, HUB_COLD_HOLD_MS at most.
      const release = warm ? this.looks.hold() : null;
      if (warm) this.warmStarts++;
      void this.queue
        .push(warm, (handOff) => {
          const cold = warm ? null : this.looks.hold(HUB_COLD_HOLD_MS);
          return (s.started = this.startOne(s, handOff, warm)).finally(() => {
            cold?.();
            if (warm) this.warmStartDone();
          });
        })
        .finally(() => release?.());
    }
    if (changes.added.length > 0 || changes.removed.length > 0) this.writeRegistry();
    return changes;
  }

  /** Stops every indexer and closes every index file (marked closed cleanly); the registry stays as it is. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const s of this.served.values()) this.halt(s);
    this.served.clear();
    await Promise.all(this.stopping.values());
    await this.idle();
  }

  private writeRegistry(): void {
    try {
      writeRegistry(this.opts.registryFile, this.registry());
    } catch (e) {
      this.opts.log(`the channel registry ${this.opts.registryFile} could not be written (${e instanceof Error ? e.message : String(e)}): the board keeps the channels it had`);
    }
  }

  /**
   * Rule: a channel whose warm first index is done begins watching its folder (its folder events
   * and periodic looks, Indexer.watch) once no other warm start is queued or under way, so that
   * every board that can be up in moments is up before the watches are set (about 40 ms per
   * 10,000 orders, a tenth of a channel's warm start); the look that follows subscribing finds
   * what changed meanwhile. No clock: it follows the starts' order.
   */
  private warmStartDone(): void {
    this.warmStarts--;
    if (this.warmStarts > 0) return;
    const waiting = this.unwatched;
    this.unwatched = [];
    for (const s of waiting) if (!s.left) s.indexer?.watch();
  }

  /**
   * A channel's turn: its index file opened (a corrupt one moved aside and rebuilt, said) and its
   * first index. A cold one hands off (`handOff`, StartQueue) once its board is shown: the next
   * channel starts while this one checks the signatures behind its board. A warm one watches its
   * folder once the other warm starts are done (warmStartDone).
   */
  private async startOne(s: Served, handOff: () => void, warm: boolean): Promise<void> {
    await this.stopping.get(s.file);
    if (s.left) return;
    const name = s.channel.name;
    const log = (line: string) => this.opts.log(`${name}: ${line}`);
    try {
      s.db = openWriter(s.file, log);
      const follower = (s.follower = this.opts.followerOf?.(name, s.channel.root, s.db) ?? null);
      const share = this.opts.maxWatches === undefined ? undefined : Math.floor(this.opts.maxWatches / Math.max(1, this.served.size));
      const given = this.opts.indexer?.onBoardVisible;
      s.indexer = new Indexer({
        lookBudget: this.looks,
        ...this.opts.indexer,
        onBoardVisible: async () => {
          await given?.();
          handOff();
        },
        root: s.channel.root,
        db: s.db,
        staleAfterMs: this.opts.staleAfterMsOf(s.channel.root),
        operators: this.opts.operatorsOf?.(name) ?? [],
        log,
        ...(share !== undefined ? { maxWatches: share } : {}),
        ...(follower ? { onSettled: () => follower.settled(), onRebuilt: (db: DB) => follower.rebuilt(db) } : {}),
      });
      await s.indexer.start({ watchLater: warm });
      if (warm) this.unwatched.push(s);
      // Its first index done, the channel's writer keeps a small page cache: what it writes next touches a few pages.
      if (!s.left) s.db.pragma(`cache_size = -${HUB_WRITER_CACHE_KIB}`);
      if (!s.left) follower?.start();
    } catch (e) {
      const why = `its index could not start: ${e instanceof Error ? e.message : String(e)}`;
      log(why);
      if (this.served.get(name) === s) {
        // Said once and listed as gone; the channel set still counts it, so a later rescan does not start it again until it left and came back.
        this.served.delete(name);
        this.entries.set(name, { name, root: s.channel.root, db: s.file, state: 'gone', why, since_ms: this.now() });
        this.writeRegistry();
      }
      this.halt(s);
    }
  }

  /** Stops `s`'s indexer and closes its file, once (a start in progress finishes first). */
  private halt(s: Served): void {
    if (s.left) return;
    s.left = true;
    const before = this.stopping.get(s.file);
    const done = (async () => {
      await before;
      await s.started?.catch(() => {});
      if (s.indexer) await s.indexer.stop().catch((e: unknown) => this.opts.log(`${s.channel.name}: stopping: ${e instanceof Error ? e.message : String(e)}`));
      if (s.follower) await s.follower.stop().catch((e: unknown) => this.opts.log(`${s.channel.name}: stopping: ${e instanceof Error ? e.message : String(e)}`));
      if (s.db) {
        try {
          closeWriter(s.db);
        } catch {
          /* already closed */
        }
      }
    })();
    this.stopping.set(s.file, done);
    void done.then(() => {
      if (this.stopping.get(s.file) === done) this.stopping.delete(s.file);
    });
  }
}
