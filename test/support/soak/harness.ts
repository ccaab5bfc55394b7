/**
 * One soak setup, shared by `npm run soak` (bench/soak.ts) and the tests: a temp channel written
 * by the fleet's process (fleet.ts), the real `claimboard serve` on it (127.0.0.1, a free port,
 * a fresh index database), event-stream clients, pollers, the change feed copied from the index,
 * and at the end the judgements (verdict.ts) and the board against a fresh index (compare.ts).
 *
 * Lifecycle: `await SoakHarness.start(opts)` (roster and history written, the board ready, the
 * clients connected, the fleet writing), then the caller's own steps (time, faults), then
 * `await h.finish()` (the fleet stopped, everything silent gone stale, the clients caught up,
 * the judgements) and always `await h.close()` (every process killed by pid, the temp folder
 * removed unless `keep`). Every wait is bounded.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SoakWrite, SoakWriteKind } from './fleet';
import { FeedReader, LagTracker, Pollers, SseClient, type FeedRow } from './clients';
import { addTemp, FleetProcess, freePort, killAll, removeTemps, sampleTree, ServeProcess, sleep, type ProcSample } from './proc';
import { boardDifferences, freshState, servedBoard } from './compare';
import { feedMisses, firstRows, percentiles, streamGaps, unheard } from './verdict';

/** Options of {@link SoakHarness.start}. Durations: seconds unless named `Ms`. */
export interface HarnessOptions {
  /** Fleet workers (default 24, about 30 files a second). */
  readonly workers?: number;
  /** Event-stream clients (default 50). */
  readonly streams?: number;
  /** Polling clients (default 10) and their pause between requests when nothing is waiting (default 500 ms). */
  readonly pollers?: number;
  readonly pollPauseMs?: number;
  /** stale_after of the board (default 20 s). */
  readonly staleAfterS?: number;
  /** Order folders the fleet keeps (default 600). */
  readonly maxOrders?: number;
  /** Shares of hung runs (fleet.ts SoakFleetOptions.hangs; default 0.04 of first runs, 0.3 of reruns). */
  readonly hangs?: { readonly first?: number; readonly rerun?: number };
  /** Finished orders written before the board starts (default 60). */
  readonly history?: number;
  /** Wraps `node` of `claimboard serve` (e.g. in a user namespace); see proc.ts. */
  readonly serveWrap?: readonly string[];
  /** Keep the temp folder (its path is logged). */
  readonly keep?: boolean;
  readonly log?: (line: string) => void;
  /** How long the first index may take (default 180 s). */
  readonly readyTimeoutS?: number;
  /** Every file the fleet writes or removes, the roster and history before the board starts included (e.g. a folder check). */
  readonly onWrite?: (w: SoakWrite) => void;
}

/** What {@link SoakHarness.finish} found. */
export interface Verdict {
  /** Files written or removed by the fleet while tracked, by kind, and per second over the tracked time. */
  readonly writes: Partial<Record<SoakWriteKind, number>>;
  readonly filesPerS: number;
  /** The index lag (write to the board's answer showing it), ms. */
  readonly lag: ReturnType<typeof percentiles>;
  readonly lagByKind: Partial<Record<SoakWriteKind, ReturnType<typeof percentiles>>>;
  /** Writes the board never showed (a write not moot by a later one). */
  readonly unseen: readonly SoakWrite[];
  readonly superseded: number;
  /** Stream clients that missed an update, and the missed rows / writes of each. */
  readonly missedClients: number;
  readonly streamGaps: number;
  readonly unheardWrites: number;
  readonly missedSamples: readonly string[];
  /** Order-folder writes the change feed has no row for, by kind (see verdict.ts). */
  readonly feedMisses: Partial<Record<SoakWriteKind, number>>;
  readonly feedMissSamples: readonly string[];
  /** Stream (re)connects beyond the first of each client, and unreadable events. */
  readonly reconnects: number;
  readonly parseErrors: number;
  readonly feedRows: number;
  readonly feedGaps: number;
  /** API latencies over the whole run (ms) and errors. */
  readonly api: { board: ReturnType<typeof percentiles>; order: ReturnType<typeof percentiles>; errors: number; resets: number; errorSamples: readonly string[] };
  /** The board against a fresh index of the final folder. */
  readonly boardOrders: number;
  readonly freshOrders: number;
  readonly boardDiffering: number;
  readonly boardDiffs: readonly string[];
  readonly laneCounts: Record<string, number>;
  /** Fleet errors (its own refusals), the serve process's exit (null: still running). */
  readonly fleetErrors: readonly string[];
  readonly serveExited: number | null;
}

export class SoakHarness {
  readonly tracker = new LagTracker();
  readonly writes: SoakWrite[] = [];
  readonly known = new Set<string>();
  streams: SseClient[] = [];
  pollers: Pollers | null = null;
  feed: FeedReader | null = null;
  serve: ServeProcess | null = null;
  fleet: FleetProcess | null = null;
  trackedFromMs = 0;
  trackedToMs = 0;
  private knownList: string[] = [];
  private knownDirty = true;

  private constructor(
    readonly dir: string,
    readonly channel: string,
    readonly db: string,
    readonly port: number,
    readonly opts: HarnessOptions,
  ) {}

  get log(): (line: string) => void {
    return this.opts.log ?? (() => {});
  }

  get staleAfterS(): number {
    return this.opts.staleAfterS ?? 20;
  }

  /** Sets everything up and starts the fleet writing; on any failure everything started is stopped. */
  static async start(opts: HarnessOptions = {}): Promise<SoakHarness> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'claimboard-soak-'));
    if (!opts.keep) addTemp(dir);
    const h = new SoakHarness(dir, path.join(dir, 'channel'), path.join(dir, 'index.sqlite'), await freePort(), opts);
    try {
      await h.boot();
      return h;
    } catch (e) {
      await h.close();
      throw e;
    }
  }

  private onWrite(w: SoakWrite): void {
    this.opts.onWrite?.(w);
    if (w.kind === 'order' && w.orderId) {
      this.known.add(w.orderId);
      this.knownDirty = true;
    } else if (w.kind === 'prune' && w.orderId) {
      this.known.delete(w.orderId);
      this.knownDirty = true;
    }
    if (!this.tracker.tracking) return;
    this.writes.push(w);
    this.tracker.add(w);
  }

  private async boot(): Promise<void> {
    const o = this.opts;
    fs.mkdirSync(this.channel, { recursive: true });
    this.fleet = new FleetProcess(this.channel, { workers: o.workers ?? 24, 'stale-after-ms': this.staleAfterS * 1000, 'max-orders': o.maxOrders ?? 600, history: o.history ?? 60, 'hang-first': o.hangs?.first ?? 0.04, 'hang-rerun': o.hangs?.rerun ?? 0.3 }, (w) => this.onWrite(w));
    const ready = JSON.parse(await this.fleet.next('READY', 300_000)) as { orders: number };
    this.log(`channel ${this.channel}: roster and ${ready.orders} finished orders written`);
    this.serve = new ServeProcess({ channel: this.channel, db: this.db, port: this.port, staleAfterS: this.staleAfterS, wrap: o.serveWrap });
    await this.serve.waitReady(o.readyTimeoutS ?? 300);
    this.log(`claimboard serve (pid ${this.serve.pid}) ready on 127.0.0.1:${this.port}`);
    this.feed = new FeedReader(this.db);
    this.feed.begin();
    this.tracker.tracking = true;
    const n = o.streams ?? 50;
    this.streams = Array.from({ length: n }, () => new SseClient(this.port, (x) => this.tracker.notify(x.orders)));
    // Every stream's first hello before the fleet writes: the rows judged all come after it.
    const t = Date.now();
    while (this.streams.some((s) => s.connects === 0)) {
      if (Date.now() - t > 300_000) throw new Error(`${this.streams.filter((s) => s.connects === 0).length} event streams did not connect within 300 s`);
      await sleep(100);
    }
    this.pollers = new Pollers(this.port, this.tracker, () => this.knownOrders(), o.pollers ?? 10, o.pollPauseMs ?? 500);
    this.trackedFromMs = Date.now();
    this.fleet.send('start');
    this.log(`fleet writing; ${n} event streams, ${o.pollers ?? 10} pollers`);
  }

  private knownOrders(): readonly string[] {
    if (this.knownDirty) {
      this.knownList = [...this.known];
      this.knownDirty = false;
    }
    return this.knownList;
  }

  /** /proc's view of every claimboard process (the serve process and its descendants). */
  sample(): ProcSample[] {
    return this.serve ? sampleTree(this.serve.pid) : [];
  }

  /**
   * Stops the fleet, waits until everything silent has gone stale (stale_after + 3 s) and the
   * clients have caught up (no write unseen, every stream at the feed's last seq, nothing new
   * for 2 s; at most `settleS`), then judges.
   */
  async finish(settleS = 120): Promise<Verdict> {
    const fleet = this.fleet as FleetProcess;
    fleet.send('stop');
    const stopped = JSON.parse(await fleet.next('STOPPED', 120_000)) as { counts: Record<string, number> };
    this.trackedToMs = Date.now();
    this.log(`fleet stopped: ${JSON.stringify(stopped.counts)}`);
    const deadline = Date.now() + settleS * 1000;
    await sleep((this.staleAfterS + 3) * 1000);
    let quietSince = Date.now();
    let lastSeq = -1;
    for (;;) {
      this.feed?.read();
      const seq = this.feed?.lastSeq ?? 0;
      if (seq !== lastSeq) {
        lastSeq = seq;
        quietSince = Date.now();
      }
      const caughtUp = this.streams.every((s) => (s.notices[s.notices.length - 1]?.seq ?? -1) >= seq);
      if (this.tracker.unseen().length === 0 && caughtUp && Date.now() - quietSince >= 2000) break;
      if (Date.now() > deadline) {
        this.log(`not settled within ${settleS} s: ${this.tracker.unseen().length} writes unseen, ${this.streams.filter((s) => (s.notices[s.notices.length - 1]?.seq ?? -1) < seq).length} streams behind seq ${seq}`);
        break;
      }
      await sleep(250);
    }
    return await this.judge();
  }

  private async judge(): Promise<Verdict> {
    await this.pollers?.stop(); // its figures are read below
    const feed = this.feed as FeedReader;
    feed.read();
    const rows: readonly FeedRow[] = feed.rows;
    // The board first (its now_ms), then the fresh derivation at that instant.
    const served = await servedBoard(this.port);
    const fresh = freshState(this.channel, served.nowMs, this.staleAfterS);
    const diff = boardDifferences(served, fresh);

    const first = firstRows(this.writes, rows);
    const misses = feedMisses(this.writes, first);
    const missByKind: Partial<Record<SoakWriteKind, number>> = {};
    for (const w of misses) missByKind[w.kind] = (missByKind[w.kind] ?? 0) + 1;
    let missedClients = 0;
    let gapsTotal = 0;
    let unheardTotal = 0;
    const samples: string[] = [];
    this.streams.forEach((s, i) => {
      const gaps = streamGaps(s.notices, rows);
      const un = unheard(s.notices, this.writes, first);
      if (gaps.length || un.length || s.parseErrors) missedClients++;
      gapsTotal += gaps.length;
      unheardTotal += un.length;
      for (const g of gaps.slice(0, 2)) if (samples.length < 10) samples.push(`stream ${i}: feed row ${g.row.seq} (${g.row.order_id}) ${g.why}`);
      for (const w of un.slice(0, 2)) if (samples.length < 10) samples.push(`stream ${i}: never told of ${w.kind} ${w.rel} at ${new Date(w.startMs).toISOString()}`);
    });
    const lagByKind: Partial<Record<SoakWriteKind, ReturnType<typeof percentiles>>> = {};
    for (const [k, v] of this.tracker.lags) lagByKind[k] = percentiles(v);
    const counts: Partial<Record<SoakWriteKind, number>> = {};
    for (const w of this.writes) counts[w.kind] = (counts[w.kind] ?? 0) + 1;
    const p = this.pollers as Pollers;
    return {
      writes: counts,
      filesPerS: this.writes.length / Math.max(1, (this.trackedToMs - this.trackedFromMs) / 1000),
      lag: percentiles(this.tracker.all()),
      lagByKind,
      unseen: this.tracker.unseen(),
      superseded: this.tracker.superseded,
      missedClients,
      streamGaps: gapsTotal,
      unheardWrites: unheardTotal,
      missedSamples: samples,
      feedMisses: missByKind,
      feedMissSamples: misses.slice(0, 10).map((w) => `${w.kind} ${w.rel} at ${new Date(w.startMs).toISOString()}`),
      reconnects: this.streams.reduce((a, s) => a + Math.max(0, s.connects - 1), 0),
      parseErrors: this.streams.reduce((a, s) => a + s.parseErrors, 0),
      feedRows: rows.length,
      feedGaps: feed.gaps,
      api: { board: percentiles(p.latency.board), order: percentiles(p.latency.order), errors: p.errors, resets: p.resets, errorSamples: p.errorSamples },
      boardOrders: served.cards.size,
      freshOrders: fresh.cards.size,
      boardDiffering: diff.differing,
      boardDiffs: diff.lines,
      laneCounts: served.laneCounts,
      fleetErrors: (this.fleet as FleetProcess).errors,
      serveExited: this.serve?.exited ?? null,
    };
  }

  /** Stops and removes everything (bounded; safe to call twice). */
  async close(): Promise<void> {
    await this.pollers?.stop().catch(() => {});
    for (const s of this.streams) s.close();
    this.feed?.close();
    await this.serve?.stop().catch(() => {});
    await this.fleet?.close().catch(() => {});
    killAll();
    if (this.opts.keep) this.log(`kept ${this.dir}`);
    else removeTemps(this.dir);
  }
}

/**
 * What went wrong in a verdict, in words (empty when clean): a stream client that missed an
 * update, an order-folder write without a change-feed row, a write the board never showed, the
 * board unlike a fresh index, an API or fleet error, `claimboard serve` gone. Growth and the
 * fleet's rate are the soak's own checks (bench/soak.ts).
 */
export function failuresOf(v: Verdict): string[] {
  const out: string[] = [];
  if (v.missedClients > 0 || v.parseErrors > 0) out.push(`${v.missedClients} stream clients missed an update (${v.streamGaps} feed rows, ${v.unheardWrites} writes, ${v.parseErrors} unreadable events): ${v.missedSamples.join('; ')}`);
  if (Object.keys(v.feedMisses).length > 0) out.push(`writes without a change-feed row ${JSON.stringify(v.feedMisses)}: ${v.feedMissSamples.join('; ')}`);
  if (v.unseen.length > 0) out.push(`${v.unseen.length} writes never shown: ${v.unseen.slice(0, 5).map((w) => `${w.kind} ${w.rel}`).join('; ')}`);
  if (v.boardDiffering > 0) out.push(`board unlike a fresh index (${v.boardDiffering}): ${v.boardDiffs.join('; ')}`);
  if (v.api.errors > 0) out.push(`${v.api.errors} API errors: ${v.api.errorSamples.join('; ')}`);
  if (v.fleetErrors.length > 0) out.push(`fleet errors: ${v.fleetErrors.slice(0, 5).join('; ')}`);
  if (v.serveExited !== null) out.push(`claimboard serve exited (${v.serveExited})`);
  return out;
}
