/**
 * The soak's simulated fleet: many workers writing into a channel at 20+ files a
 * second with ferryman's formats and real signatures (lib/demo/write.ts, the ferry steps of
 * lib/demo/ferry.ts), bounded in size so the index reaches a steady state:
 *
 * - ops issues orders (some requiring review) so the queue never empties, reviews results
 *   (some sent back: the holder runs the next revision), acknowledges give-ups, and archives the
 *   oldest finished order folders once the channel holds `maxOrders` (a folder deleted as
 *   another machine's Syncthing would delete it);
 * - each worker claims an open order (ferry's claim file and ledger line), heartbeats every
 *   0.6-1.4 s (temp + rename: a new ctime), and ends the run with a result (heartbeat removed,
 *   signed result, ledger line), a release of its own claim, a give-up, or dies (claim and
 *   heartbeat left: the card goes stale) and comes back 1.5 x stale_after later, releasing the
 *   dead run as ferry's worker start does (`worker died mid-run`); now and then a second worker
 *   claims the same order (a double run) and gives it back;
 * - now and then a Syncthing conflict copy, a result signed with another worker's key
 *   (forged), or an unsigned result (a bad record) lands in a running order's folder;
 * - two workers write on skewed clocks (+3 h, -2 h): nothing may compare them.
 *
 * The fleet decides from its own memory of what it wrote, never by reading the folder, so it
 * costs little at any size. Every file it writes or removes is reported (`onWrite`) with this
 * machine's clock just before the write (`startMs`) and, for a file left in place, its ctime
 * right after (the arrival claimboard records), plus what an order's card must show once the
 * index has read it (`expect`), which the soak's pollers check.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { benchSeed, OPS, REVIEWER, WORKERS } from '../../../bench/generate';
import { nodePublicKey, nodeSign } from '../../../lib/index/disk/node-sign';
import { signFields } from '../../../lib/ledger/sign';
import { mulberry32 } from '../../../lib/util/prng';
import { DIED_MID_RUN, claimOrder, endRun, submitResult } from '../../../lib/demo/ferry';
import type { Expectation, SoakWrite, SoakWriteKind } from './types';
import { writerTime, type Identity } from '../../../lib/demo/identity';
import { writeAck, writeAgent, writeGiveup, writeHeartbeat, writeOrder, writeRelease, writeReview } from '../../../lib/demo/write';
import { appendLedgerLine } from '../../../lib/demo/ledger-line';
import { writeFileAtomic } from '../../../lib/demo/record-file';

export type { Expectation, SoakWrite, SoakWriteKind } from './types';

/** Options of {@link SoakFleet}. Durations in ms, this machine's clock. */
export interface SoakFleetOptions {
  /** Workers (default 24; at most 36): each writes ~1.3 files a second. */
  readonly workers?: number;
  /** stale_after of the board (default 20 000): a dead worker comes back 1.5 x this later. */
  readonly staleAfterMs?: number;
  /** Order folders kept (default 600): the oldest finished ones are archived beyond it. */
  readonly maxOrders?: number;
  /** Seed of every random choice (default 15). */
  readonly seed?: number;
  /** Tick period (default 25). */
  readonly tickMs?: number;
  /**
   * Share of runs whose heartbeat stops while their worker goes on with other orders (a hung
   * engine: the card goes stale `heartbeat_lapsed`, then `agent_silent` once the worker falls
   * silent everywhere); ops requeues such an order 6-10 x stale_after later. `first`: a first
   * run (default 0.04); `rerun`: the holder's run of the next revision of a sent-back order
   * (default 0.3; its card is stale by its run, `run_lane`).
   */
  readonly hangs?: { readonly first?: number; readonly rerun?: number };
  readonly onWrite?: (w: SoakWrite) => void;
  /** Errors of a tick (the tick is skipped); default: rethrown from the timer. */
  readonly onError?: (e: unknown) => void;
}

type OrderState = 'open' | 'running' | 'review' | 'changes' | 'done' | 'gaveup' | 'dead' | 'hung';
interface OrderMem {
  readonly id: string;
  state: OrderState;
  holder: string | null;
  revision: number;
  readonly requiresReview: boolean;
  /** Workers with a claim file on it (a released claim stays released: they never claim it again). */
  readonly claimed: Set<string>;
  /** When ops acts on it next (review, ack), this clock. */
  dueMs: number;
  giveupDigest: string | null;
  finishedMs: number;
}
type Fate = 'finish' | 'release' | 'giveup' | 'die' | 'hang';
interface RunMem {
  readonly order: string;
  readonly run: string;
  readonly pid: number;
  readonly endsMs: number;
  readonly fate: Fate;
  nextBeatMs: number;
  /** A second claimant of a double run: it gives the order back at its end. */
  readonly extra: boolean;
}
interface WorkerMem {
  readonly id: Identity;
  run: RunMem | null;
  downUntilMs: number | null;
  deadOrder: string | null;
  idleUntilMs: number;
}

const SKEW: Readonly<Record<string, number>> = { 'worker-01': 3 * 3_600_000, 'worker-02': -2 * 3_600_000 };

/** The fleet's identities (bench/generate.ts's names and seeds, so its generated orders verify here too). */
export function soakIdentity(name: string): Identity {
  return { name, seedHex: benchSeed(name), clockOffsetMs: SKEW[name] ?? 0 };
}

/** A running fleet on the channel at `root`. Call {@link SoakFleet.setup} once, then {@link SoakFleet.start}. */
export class SoakFleet {
  private readonly rnd: () => number;
  private readonly ops: Identity;
  private readonly workers: WorkerMem[];
  private readonly orders = new Map<string, OrderMem>();
  private readonly staleAfterMs: number;
  private readonly maxOrders: number;
  private timer: NodeJS.Timeout | null = null;
  private nextOrder = 1;
  private nextOddMs = 0;
  private odd = 0;
  /** Files written or removed, by kind. */
  readonly counts: Partial<Record<SoakWriteKind, number>> = {};

  constructor(
    readonly root: string,
    private readonly opts: SoakFleetOptions = {},
  ) {
    this.rnd = mulberry32(opts.seed ?? 15);
    this.staleAfterMs = opts.staleAfterMs ?? 20_000;
    this.maxOrders = opts.maxOrders ?? 600;
    const n = Math.min(36, Math.max(1, opts.workers ?? 24));
    this.ops = soakIdentity(OPS);
    this.workers = WORKERS.slice(0, n).map((w) => ({ id: soakIdentity(w), run: null, downUntilMs: null, deadOrder: null, idleUntilMs: 0 }));
  }

  private emit(kind: SoakWriteKind, rel: string, orderId: string | null, startMs: number, expect?: (ctimeMs: number) => Expectation, removed = false): void {
    let ctimeMs: number | null = null;
    if (!removed) {
      try {
        ctimeMs = fs.statSync(path.join(this.root, rel)).ctimeMs;
      } catch {
        ctimeMs = null;
      }
    }
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
    this.opts.onWrite?.({ kind, rel, orderId, startMs, ctimeMs, ...(expect && ctimeMs !== null ? { expect: expect(ctimeMs) } : {}) });
  }

  private between(a: number, b: number): number {
    return a + this.rnd() * (b - a);
  }

  /** The roster (ops as operator, the workers) and `history` finished orders; writes synchronously. */
  setup(history = 60): void {
    fs.mkdirSync(path.join(this.root, 'tasks'), { recursive: true });
    // bench/generate.ts's whole roster (its orders, e.g. a burst's, verify here), whoever works.
    for (const name of [OPS, REVIEWER, ...WORKERS]) {
      const t = Date.now();
      writeAgent(this.root, { name, role: name === OPS ? 'operator' : name === REVIEWER ? 'reviewer' : 'worker', publicKey: nodePublicKey(soakIdentity(name).seedHex) });
      this.emit('agent', `agents/${name}.json`, null, t);
    }
    for (let i = 0; i < history; i++) {
      const id = this.issue();
      const w = this.workers[i % this.workers.length] as WorkerMem;
      this.claim(w, id, false);
      const o = this.orders.get(id) as OrderMem;
      this.result(w, o);
      if (o.state === 'review') this.review(o, true);
    }
  }

  /** Starts the timers (one tick every `tickMs`). */
  start(): void {
    if (this.timer) return;
    const tick = () => {
      try {
        this.tick(Date.now());
      } catch (e) {
        if (this.opts.onError) this.opts.onError(e);
        else throw e;
      }
    };
    this.timer = setInterval(tick, this.opts.tickMs ?? 25);
  }

  /** Stops the timers; a tick is synchronous, so no write is left half done. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Orders the fleet knows (folders not archived). */
  get orderCount(): number {
    return this.orders.size;
  }

  // ---- one tick ----------------------------------------------------------------------------

  private tick(now: number): void {
    for (const w of this.workers) this.workerTick(w, now);
    this.opsTick(now);
    if (now >= this.nextOddMs) {
      this.oddFile();
      this.nextOddMs = now + this.between(2_000, 6_000);
    }
  }

  private workerTick(w: WorkerMem, now: number): void {
    if (w.downUntilMs !== null) {
      if (now < w.downUntilMs) return;
      this.restart(w);
      return;
    }
    const r = w.run;
    if (r) {
      if (now >= r.endsMs) this.endRun(w, r);
      else if (now >= r.nextBeatMs) this.beat(w, r);
      return;
    }
    if (now < w.idleUntilMs) return;
    const name = w.id.name;
    // Its own sent-back orders first, then the oldest open order it never claimed.
    let pick: OrderMem | undefined;
    for (const o of this.orders.values()) {
      if (o.state === 'changes' && o.holder === name) {
        pick = o;
        break;
      }
    }
    if (!pick) for (const o of this.orders.values()) if (o.state === 'open' && !o.claimed.has(name)) { pick = o; break; }
    if (!pick) return;
    // Now and then a second worker takes the same order at the same moment: a double run. Only
    // workers on this machine's clock: which claim is the holder's must not hang on a skew (nor,
    // within one millisecond, on a tie), so neither claim carries an expectation.
    const order = pick;
    const other =
      order.state === 'open' && !SKEW[name] && this.rnd() < 0.03
        ? this.workers.find((x) => x !== w && !x.run && x.downUntilMs === null && !SKEW[x.id.name] && !order.claimed.has(x.id.name))
        : undefined;
    this.claim(w, order.id, true, !other);
    if (other) this.claim(other, order.id, true, false, true);
  }

  private opsTick(now: number): void {
    let open = 0;
    for (const o of this.orders.values()) {
      if (o.state === 'open') open++;
      else if (o.state === 'review' && now >= o.dueMs) this.review(o, this.rnd() < 0.85);
      else if (o.state === 'gaveup' && o.giveupDigest && now >= o.dueMs) this.ack(o);
      else if (o.state === 'hung' && now >= o.dueMs) this.requeue(o);
    }
    if (open < Math.ceil(this.workers.length / 3)) this.issue();
    this.archive();
  }

  // ---- what each identity writes ----------------------------------------------------------

  private issue(): string {
    const id = `soak-${String(this.nextOrder++).padStart(6, '0')}`;
    const requiresReview = this.rnd() < 0.3;
    const t = Date.now();
    writeOrder(this.root, this.ops, { id, project_id: this.rnd() < 0.5 ? 'atlas' : 'infra', payload: { task: `soak task ${id}` }, requires_review: requiresReview });
    this.orders.set(id, { id, state: 'open', holder: null, revision: 0, requiresReview, claimed: new Set(), dueMs: 0, giveupDigest: null, finishedMs: 0 });
    this.emit('order', `tasks/${id}/order.json`, id, t, () => ({ kind: 'exists' }));
    return id;
  }

  /**
   * `w` claims order `id` (ferry's claim file, when it has none, and ledger line); with `run`, its
   * run starts (first heartbeat now). `expectHolder`: the card must then name it the holder.
   * `extra`: the second claimant of a double run (the order stays the first one's).
   */
  private claim(w: WorkerMem, id: string, run: boolean, expectHolder = true, extra = false): void {
    const o = this.orders.get(id) as OrderMem;
    const name = w.id.name;
    const rel = `tasks/${id}/claim.${name}.json`;
    const t = Date.now();
    const wrote = claimOrder(this.root, w.id, id);
    if (wrote) this.emit('claim', rel, id, t, expectHolder ? () => ({ kind: 'holder', agent: name }) : undefined);
    this.emit('ledger', `ledger.${name}.jsonl`, null, t);
    o.claimed.add(name);
    if (!extra) {
      o.state = 'running';
      o.holder = name;
    }
    if (!run) return;
    const now = Date.now();
    const roll = this.rnd();
    const rerun = o.revision > 0;
    const hang = rerun ? (this.opts.hangs?.rerun ?? 0.3) : (this.opts.hangs?.first ?? 0.04);
    const fate: Fate = extra ? 'release' : this.rnd() < hang ? 'hang' : roll < 0.8 ? 'finish' : roll < 0.9 ? 'release' : roll < 0.95 ? 'giveup' : 'die';
    const r: RunMem = { order: id, run: randomBytes(16).toString('hex'), pid: 1000 + Math.floor(this.rnd() * 60_000), endsMs: now + this.between(4_000, 16_000), fate, nextBeatMs: now, extra };
    w.run = r;
    this.beat(w, r);
  }

  private beat(w: WorkerMem, r: RunMem): void {
    const t = Date.now();
    const name = w.id.name;
    writeHeartbeat(this.root, w.id, r.order, { run: r.run, pid: r.pid });
    r.nextBeatMs = t + this.between(600, 1_400);
    this.emit('heartbeat', `tasks/${r.order}/heartbeat.${name}.json`, r.order, t, (ctimeMs) => ({ kind: 'beat', agent: name, run: r.run, arrivalMs: ctimeMs }));
  }

  private endRun(w: WorkerMem, r: RunMem): void {
    const o = this.orders.get(r.order);
    const name = w.id.name;
    w.run = null;
    w.idleUntilMs = Date.now() + this.between(200, 1_000);
    if (!o) return; // archived meanwhile (it never is while running, but stay safe)
    const hb = `tasks/${r.order}/heartbeat.${name}.json`;
    switch (r.fate) {
      case 'finish':
        this.result(w, o);
        return;
      case 'release': {
        const t = Date.now();
        endRun(this.root, w.id, r.order);
        this.emit('unbeat', hb, r.order, t, undefined, true);
        this.releaseOwn(w.id, o, 'giving it back: soak', 'claimboard');
        if (!r.extra) {
          o.state = 'open';
          o.holder = null;
        }
        return;
      }
      case 'giveup': {
        let t = Date.now();
        endRun(this.root, w.id, r.order);
        this.emit('unbeat', hb, r.order, t, undefined, true);
        t = Date.now();
        const g = writeGiveup(this.root, w.id, r.order, { run: r.run, reason: 'retry ceiling reached', attempts: 3 });
        this.emit('giveup', g.rel, r.order, t);
        o.state = 'gaveup';
        o.giveupDigest = g.digest;
        o.dueMs = Date.now() + this.between(2_000, 8_000);
        return;
      }
      case 'hang':
        // Claim and heartbeat stay, the worker goes on; ops requeues it later.
        o.state = 'hung';
        o.dueMs = Date.now() + this.between(6, 10) * this.staleAfterMs;
        return;
      case 'die':
        // Claim and heartbeat stay; nothing of this worker arrives until its restart.
        w.downUntilMs = Date.now() + 1.5 * this.staleAfterMs + this.between(0, 5_000);
        w.deadOrder = r.order;
        o.state = 'dead';
        return;
    }
  }

  private result(w: WorkerMem, o: OrderMem): void {
    const name = w.id.name;
    const revision = o.revision + 1;
    const t = Date.now();
    const hadBeat = fs.existsSync(path.join(this.root, 'tasks', o.id, `heartbeat.${name}.json`));
    submitResult(this.root, w.id, o.id, revision, { summary: `revision ${revision} of ${o.id}` });
    if (hadBeat) this.emit('unbeat', `tasks/${o.id}/heartbeat.${name}.json`, o.id, t, undefined, true);
    this.emit('result', `tasks/${o.id}/result.${name}.${String(revision).padStart(3, '0')}.json`, o.id, t, () => ({ kind: 'revision', atLeast: revision }));
    this.emit('ledger', `ledger.${name}.jsonl`, null, t);
    o.revision = revision;
    if (o.requiresReview) {
      o.state = 'review';
      o.dueMs = Date.now() + this.between(1_000, 5_000);
    } else {
      o.state = 'done';
      o.finishedMs = Date.now();
    }
  }

  private review(o: OrderMem, accept: boolean): void {
    const t = Date.now();
    const r = writeReview(this.root, this.ops, o.id, o.revision, accept, accept ? null : 'tests missing for the error path');
    this.emit('review', r.rel, o.id, t);
    if (accept) {
      o.state = 'done';
      o.finishedMs = Date.now();
    } else o.state = 'changes';
  }

  private ack(o: OrderMem): void {
    const t = Date.now();
    const a = writeAck(this.root, this.ops, o.id, `giveup:${o.giveupDigest}`, 'seen; closing');
    this.emit('ack', a.rel, o.id, t);
    o.giveupDigest = null;
    o.finishedMs = Date.now();
  }

  /** ops releases a hung run's claim (as the board's requeue does: `release.ops.<holder>.json`); the order is open again. */
  private requeue(o: OrderMem): void {
    const holder = o.holder;
    if (!holder) return;
    const t = Date.now();
    const r = writeRelease(this.root, this.ops, o.id, holder, 'requeued: stale');
    this.emit('release', r.rel, o.id, t, () => ({ kind: 'not_holder', agent: holder }));
    o.state = 'open';
    o.holder = null;
  }

  /** A release of its own claim, signed, and ferry's ledger line. `ferryman`: ferry's own file name (rewritten). */
  private releaseOwn(who: Identity, o: OrderMem, reason: string, fileName: 'claimboard' | 'ferryman'): void {
    const t = Date.now();
    const rel = writeRelease(this.root, who, o.id, who.name, reason, { fileName });
    appendLedgerLine(this.root, who, { kind: 'release', summary: `released ${who.name}'s claim on ${o.id} (${reason})`, reference: o.id });
    this.emit('release', rel.rel, o.id, t, () => ({ kind: 'not_holder', agent: who.name }));
    this.emit('ledger', `ledger.${who.name}.jsonl`, null, t);
  }

  /** A dead worker's start: its dead run released (ferry's `release_own_dead_runs`), then back to work. */
  private restart(w: WorkerMem): void {
    const o = w.deadOrder ? this.orders.get(w.deadOrder) : undefined;
    if (o && o.state === 'dead' && o.holder === w.id.name) {
      this.releaseOwn(w.id, o, DIED_MID_RUN, 'ferryman');
      o.state = 'open';
      o.holder = null;
    }
    w.downUntilMs = null;
    w.deadOrder = null;
    w.idleUntilMs = Date.now() + this.between(200, 1_000);
  }

  /** A conflict copy, a forged result or an unsigned one in a running order's folder, in turn. */
  private oddFile(): void {
    const running = [...this.orders.values()].filter((o) => o.state === 'running' && o.holder);
    const o = running[Math.floor(this.rnd() * running.length)];
    if (!o?.holder) return;
    const holder = o.holder;
    const n = ++this.odd;
    const t = Date.now();
    const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v, null, 2));
    switch (n % 3) {
      case 0: {
        // Syncthing keeps both sides of a concurrent write: `<stem>.sync-conflict-<date>-<time>-<device>.<ext>`.
        const rel = `tasks/${o.id}/claim.${holder}.sync-conflict-20261201-101010-SOAK${n}.json`;
        writeFileAtomic(path.join(this.root, rel), bytes({ order_id: o.id, agent: holder, claimed_at: writerTime(soakIdentity(holder)) }), 'once');
        this.emit('conflict', rel, o.id, t);
        return;
      }
      case 1: {
        // Signed by the holder's name with another worker's key: a forged result.
        const forger = this.workers.find((x) => x.id.name !== holder)?.id ?? this.ops;
        const rel = `tasks/${o.id}/result.${holder}.${String(900 + (n % 90)).padStart(3, '0')}.json`;
        const fields = { order_id: o.id, agent: holder, revision: 900 + (n % 90), submitted_at: writerTime(soakIdentity(holder)), payload: { summary: 'forged' } };
        writeFileAtomic(path.join(this.root, rel), bytes(signFields('result', fields, holder, (p) => nodeSign(forger.seedHex, p))), 'replace');
        this.emit('forged', rel, o.id, t);
        return;
      }
      default: {
        const rel = `tasks/${o.id}/result.${holder}.${String(800 + (n % 90)).padStart(3, '0')}.json`;
        writeFileAtomic(path.join(this.root, rel), bytes({ order_id: o.id, agent: holder, revision: 800 + (n % 90), submitted_at: writerTime(soakIdentity(holder)), payload: { summary: 'unsigned' } }), 'replace');
        this.emit('unsigned', rel, o.id, t);
        return;
      }
    }
  }

  /** Removes the oldest finished order folders beyond `maxOrders` (as another machine's deletion arrives). */
  private archive(): void {
    if (this.orders.size <= this.maxOrders) return;
    let oldest: OrderMem | null = null;
    for (const o of this.orders.values()) {
      const finished = o.state === 'done' || (o.state === 'gaveup' && o.giveupDigest === null);
      if (finished && (!oldest || o.finishedMs < oldest.finishedMs)) oldest = o;
    }
    if (!oldest) return;
    const t = Date.now();
    fs.rmSync(path.join(this.root, 'tasks', oldest.id), { recursive: true, force: true });
    this.orders.delete(oldest.id);
    this.emit('prune', `tasks/${oldest.id}`, oldest.id, t, undefined, true);
  }
}
