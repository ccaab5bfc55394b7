import 'server-only';
/**
 * Alerts in the serve process: after each index pass the indexer
 * pokes the engine (IndexerOptions.onSettled), which, on the next turn of the event loop and
 * never inside the pass, reads the Needs attention and Stale lanes and the paging problems from
 * the index, decides against the sent set (decide.ts) and stores the decision with the messages
 * it makes for each target in one transaction. Each target then delivers its messages in order,
 * one at a time, asynchronously (a timeout per attempt, bounded retries with exponential
 * backoff), so a slow or failing endpoint delays nothing but its own messages. Messages owed
 * survive a restart; nothing sent is sent again.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { DB } from '../index/db';
import { cardLane, changedOrderIds, firstSeqAfter, latestSeq, pagingCards, problemDetail, problemsWithCodes, storedCard } from '../index/read/queries';
import type { Card } from '../ledger/derive';
import type { ProblemCode } from '../ledger/channel';
import { formatLocalInstant } from '../ledger/time';
import { decide, type Decision, type OpenRow } from './decide';
import { attempt, type AlertTarget } from './deliver';
import { cardWords, itemOfProblem, itemsOfCard, PAGING_PROBLEMS, problemWords, resolvedOrderWords, resolvedProblemWords, type AlertItem } from './items';
import { makePayload, redactCommand, redactUrl, type AlertPayload } from './payload';
import { copyAlertTables, nextPending, openRows, prune, recordFailure, recordSuccess, storeConfig, storeDecision, type OutboxEntry } from './store';
import type { StoredAlertConfig } from '../index/store/meta';
import { indexNowMs } from '../index/steady-clock';

export type { AlertTarget } from './deliver';

export interface AlertOptions {
  /** The index's connection (the serve process's one writer); a rebuilt index's is given by {@link AlertEngine.useDb}. */
  readonly db: DB;
  /** The channel root (its folder name is the payload's `channel`, unless `channelName`). */
  readonly channel: string;
  /**
   * The channel's name in a serve of several (the hub's registry name): the payload's `channel`
   * and text say it, and the links carry `?channel=<name>` (order ids repeat across channels).
   */
  readonly channelName?: string;
  /** stale_after, ms (the board's sentences of a stale card say it). */
  readonly staleAfterMs: number;
  readonly targets: readonly AlertTarget[];
  /** The quiet period, ms: how long an item must have been there (and gone) before it is sent (resolved). Default 0. */
  readonly afterMs?: number;
  /** The board's address as readers reach it, e.g. `http://127.0.0.1:3000` (no trailing slash needed). */
  readonly baseUrl: string;
  /**
   * This machine's clock, ms (default: the index's clock, steady-clock.ts indexNowMs: the wall
   * clock less the steps the indexer saw, the timeline the cards' arrivals and ages are on).
   */
  readonly clock?: () => number;
  /** Timeout of one attempt, ms (default 10 000). */
  readonly timeoutMs?: number;
  /** Attempts per message and target, the first included (default 5). */
  readonly maxAttempts?: number;
  /** Wait before the first retry, ms, doubling after each (default 1 000; at most 60 000). */
  readonly backoffMs?: number;
  readonly log?: (line: string) => void;
  /** The User-Agent of webhook requests (default `claimboard`). */
  readonly userAgent?: string;
}

/** A target's id in the index: a short hash of what it is (the URL itself, a secret, is never stored). */
export function targetId(t: AlertTarget): string {
  const what = t.kind === 'webhook' ? `webhook:${t.url.href}` : `command:${t.command}`;
  return createHash('sha256').update(what).digest('hex').slice(0, 12);
}

/** A target in words without its secrets (payload.ts redactUrl / redactCommand). */
export function targetLabel(t: AlertTarget): string {
  return t.kind === 'webhook' ? redactUrl(t.url) : `command: ${redactCommand(t.command)}`;
}

interface Queue {
  readonly id: string;
  readonly label: string;
  readonly target: AlertTarget;
  running: Promise<void> | null;
  /** Ends a wait for a retry early (stop, or new work while idle). */
  wakeUp: (() => void) | null;
  /** The last attempt failed (a success after it is logged once). */
  failing: boolean;
}

const MAX_BACKOFF_MS = 60_000;

export class AlertEngine {
  /** The connection decided and delivered on: the index's, followed when it is rebuilt (useDb). */
  private db: DB;
  private readonly clock: () => number;
  private readonly log: (line: string) => void;
  private readonly afterMs: number;
  private readonly base: string;
  private readonly channelName: string;
  private readonly queues: Queue[];
  private readonly stopping = new AbortController();
  private started = false;
  private stopped = false;
  private pending: NodeJS.Immediate | null = null;
  private wakeTimer: NodeJS.Timeout | null = null;
  /** The items of each attention or stale card, by the fingerprint of the card they were read from. */
  private readonly memo = new Map<string, { fp: number; items: AlertItem[] }>();
  private evaluations = 0;
  /** The open rows of the sent set (this engine is their only writer: read once at start, then kept in step). */
  private readonly open = new Map<string, OpenRow>();
  /** The change feed's last sequence number decided on, or null before the first (full) decision. */
  private lastSeq: number | null = null;

  constructor(private readonly opts: AlertOptions) {
    this.db = opts.db;
    this.clock = opts.clock ?? (() => indexNowMs(this.db));
    this.log = opts.log ?? (() => {});
    this.afterMs = Math.max(0, opts.afterMs ?? 0);
    this.base = opts.baseUrl.replace(/\/+$/, '');
    this.channelName = opts.channelName ?? path.basename(path.resolve(opts.channel));
    const seen = new Set<string>();
    this.queues = [];
    for (const target of opts.targets) {
      const id = targetId(target);
      if (seen.has(id)) continue; // the same target twice is one target
      seen.add(id);
      this.queues.push({ id, label: targetLabel(target), target, running: null, wakeUp: null, failing: false });
    }
  }

  /** The configuration as stored for the web server. */
  get config(): StoredAlertConfig {
    return { targets: this.queues.map((q) => ({ id: q.id, kind: q.target.kind, label: q.label })), after_ms: this.afterMs, base_url: this.base };
  }

  /**
   * Starts deciding (call it once the first index is ready: pokes before are ignored, so a warm
   * start's half-updated board never pages) and resumes the deliveries a previous run still owed.
   */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    storeConfig(this.db, this.config, this.clock());
    for (const r of openRows(this.db)) this.open.set(r.key, r);
    this.poke();
    for (const q of this.queues) this.kick(q);
  }

  /**
   * Follows the index to a new connection `db` (the indexer rebuilt a deleted or replaced
   * database: IndexerOptions.onRebuilt), called while the old one is still open: the alerts'
   * tables are copied into the new file (what was sent is not sent again, what is owed is still
   * delivered, the status page keeps its history; the new file's own are empty), then everything
   * is decided again on it. Before, the engine kept the old connection: it read a board nobody
   * updated any more and paged nothing new. Without the old one open, the configuration and the
   * open rows it keeps in memory are written instead (owed deliveries are lost, and said).
   */
  useDb(db: DB): void {
    if (db === this.db) return;
    const old = this.db;
    this.db = db;
    this.lastSeq = null; // the new feed's sequence numbers start again
    this.memo.clear();
    // Never throws (the indexer calls it inside its rebuild): a failed copy is said, then retried as the memory's rows.
    try {
      if (!old.open) throw new Error('the old index was already closed');
      const n = copyAlertTables(old, db);
      this.log(`alerts: following the rebuilt index (${n.open} open alert${n.open === 1 ? '' : 's'} and ${n.owed} owed deliver${n.owed === 1 ? 'y' : 'ies'} carried over)`);
    } catch (e) {
      try {
        storeDecision(db, { put: [...this.open.values()], drop: [], send: [], resolve: [], wakeMs: null }, [], this.clock());
        this.log(`alerts: following the rebuilt index; ${this.open.size} open alerts kept, deliveries owed on the old index lost (${e instanceof Error ? e.message : String(e)})`);
      } catch (e2) {
        this.log(`alerts: following the rebuilt index; nothing carried over (${e2 instanceof Error ? e2.message : String(e2)})`);
      }
    }
    if (!this.started || this.stopped) return;
    try {
      storeConfig(db, this.config, this.clock());
    } catch (e) {
      this.log(`alerts: could not store the configuration in the rebuilt index: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.poke();
    for (const q of this.queues) this.kick(q);
  }

  /**
   * Asks for a decision soon (the indexer calls it after each pass): on the next turn of the
   * event loop, once however often it is asked meanwhile. Returns at once; never throws.
   */
  poke(): void {
    if (!this.started || this.stopped || this.pending) return;
    this.pending = setImmediate(() => {
      this.pending = null;
      try {
        this.evaluate();
      } catch (e) {
        this.log(`alerts: deciding failed, trying again in 1 s: ${e instanceof Error ? e.message : String(e)}`);
        this.wakeAt(this.clock() + 1000);
      }
    });
  }

  /** Stops deciding and delivering; an attempt under way is abandoned (still owed at the next start). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pending) clearImmediate(this.pending);
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.pending = null;
    this.wakeTimer = null;
    this.stopping.abort();
    for (const q of this.queues) q.wakeUp?.();
    await Promise.all(this.queues.map((q) => q.running ?? Promise.resolve()));
  }

  /** Resolves once nothing is decided or delivered any more (tests; deliveries that hang keep it waiting). */
  async idle(): Promise<void> {
    for (;;) {
      await new Promise((r) => setTimeout(r, 5));
      if (!this.pending && this.queues.every((q) => q.running === null)) return;
    }
  }

  /** Decisions made so far (tests). */
  get evaluationCount(): number {
    return this.evaluations;
  }

  private wakeAt(t: number): void {
    if (this.stopped) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTimer = null;
        this.poke();
      },
      Math.max(0, Math.min(t - this.clock(), 2 ** 31 - 1)) + 1,
    );
    this.wakeTimer.unref?.();
  }

  /**
   * Which orders changed since the last decision, from the indexer's change feed (`changes`):
   * null when everything must be looked at (the first decision, a `*` row, or rows pruned
   * before they were read).
   */
  private changedSince(): Set<string> | null {
    const db = this.db;
    const max = latestSeq(db);
    const last = this.lastSeq;
    this.lastSeq = max;
    if (last === null || max < last) return null;
    if (max === last) return new Set();
    const min = firstSeqAfter(db, last);
    // Sequence numbers have no gaps but where the indexer pruned the feed's oldest rows.
    if (min !== null && min > last + 1) return null;
    const ids = new Set<string>();
    for (const id of changedOrderIds(db, last, max)) {
      if (id === '*') return null;
      ids.add(id);
    }
    return ids;
  }

  /** The items of one card row (parsed only when the card changed since it was last read). */
  private itemsOf(id: string, lane: string, fp: number | null): AlertItem[] {
    if (lane !== 'attention' && lane !== 'stale') {
      this.memo.delete(id);
      return [];
    }
    let m = this.memo.get(id);
    if (!m || fp === null || m.fp !== fp) {
      const card = storedCard(this.db, id);
      m = { fp: fp ?? Number.NaN, items: card ? itemsOfCard(card) : [] };
      this.memo.set(id, m);
    }
    return m.items;
  }

  /**
   * The items paging now, by key: of every card in the two lanes (`ids` null), or of the cards
   * of `ids` only; and every paging problem (few: the table is read whole).
   */
  private currentItems(ids: ReadonlySet<string> | null): Map<string, AlertItem> {
    const db = this.db;
    const current = new Map<string, AlertItem>();
    if (ids === null) {
      const seen = new Set<string>();
      for (const r of pagingCards(db)) {
        seen.add(r.order_id);
        for (const it of this.itemsOf(r.order_id, r.lane, r.fp)) current.set(it.key, it);
      }
      for (const id of this.memo.keys()) if (!seen.has(id)) this.memo.delete(id);
    } else {
      for (const id of ids) {
        const r = cardLane(db, id);
        for (const it of r ? this.itemsOf(id, r.lane, r.fp) : (this.memo.delete(id), [])) current.set(it.key, it);
      }
    }
    const codes = (Object.keys(PAGING_PROBLEMS) as ProblemCode[]).filter((c) => PAGING_PROBLEMS[c]);
    for (const p of problemsWithCodes(db, codes)) {
      const it = itemOfProblem(p);
      if (it) current.set(it.key, it);
    }
    return current;
  }

  /**
   * Decides and stores the decision with its messages; kicks the targets that got any. Groups
   * are decided independently, so only what may have changed is decided: the orders the change
   * feed names, the problems, and the rows whose quiet period runs (sent_ms null, or gone).
   */
  private evaluate(): void {
    if (this.stopped) return;
    this.evaluations++;
    const now = this.clock();
    const changed = this.changedSince();
    let rows: OpenRow[];
    let current: Map<string, AlertItem>;
    if (changed === null) {
      rows = [...this.open.values()];
      current = this.currentItems(null);
    } else {
      rows = [...this.open.values()].filter((r) => r.kind === 'problem' || r.sent_ms === null || r.gone_ms !== null || (r.order_id !== null && changed.has(r.order_id)));
      const ids = new Set(changed);
      for (const r of rows) if (r.order_id !== null) ids.add(r.order_id);
      current = this.currentItems(ids);
    }
    const d = decide(current, rows, now, this.afterMs);
    if (d.wakeMs !== null) this.wakeAt(d.wakeMs);
    if (d.put.length === 0 && d.drop.length === 0 && d.send.length === 0 && d.resolve.length === 0) return;
    const payloads = this.payloadsOf(d, now);
    const messages: OutboxEntry[] = [];
    for (const p of payloads) for (const q of this.queues) messages.push({ target: q.id, event: p.payload.event, grp: p.grp, payload: JSON.stringify(p.payload) });
    storeDecision(this.db, d, messages, now);
    for (const r of d.put) this.open.set(r.key, r);
    for (const k of d.drop) this.open.delete(k);
    for (const g of d.resolve) for (const r of g.rows) this.open.delete(r.key);
    if (payloads.length > 0) {
      if (this.evaluations % 50 === 0) prune(this.db);
      for (const q of this.queues) this.kick(q);
    }
  }

  private urlOf(orderId: string | null): string {
    const page = orderId === null ? `${this.base}/problems` : `${this.base}/orders/${encodeURIComponent(orderId)}`;
    return this.opts.channelName === undefined ? page : `${page}?channel=${encodeURIComponent(this.opts.channelName)}`;
  }

  /** The messages of a decision: one per group sent, one per group resolved. */
  private payloadsOf(d: Decision, now: number): { grp: string; payload: AlertPayload }[] {
    const card = (id: string): Card | null => storedCard(this.db, id);
    const ctx = { nowMs: now, staleAfterMs: this.opts.staleAfterMs };
    const out: { grp: string; payload: AlertPayload }[] = [];
    const orderFacts = (c: Card | null) => (c ? { lane: c.lane, state: c.state, flags: c.flags } : {});
    for (const g of d.send) {
      const first = g.items[0] as OpenRow;
      const reasons = g.items.map((r) => r.reason);
      const seenAt = Math.min(...g.items.map((r) => r.first_seen_ms));
      const base = { channel: this.channelName, reasons, url: this.urlOf(first.order_id) };
      switch (first.kind) {
        case 'attention':
        case 'stale': {
          const id = first.order_id ?? '';
          const c = card(id);
          const since = first.kind === 'stale' && c?.since_ms !== undefined ? c.since_ms : seenAt;
          const reason = c ? cardWords(c, first.kind, reasons, ctx) : reasons.join('; ');
          out.push({ grp: g.grp, payload: makePayload({ event: first.kind, ...base, order_id: id, ...orderFacts(c), reason, since: formatLocalInstant(since) }) });
          break;
        }
        case 'problem': {
          const p = problemDetail(this.db, first.path, first.reason);
          const reason = problemWords({ path: first.path ?? '', problem: first.reason as ProblemCode, detail: p?.detail ?? '', line: p?.line ?? undefined });
          out.push({ grp: g.grp, payload: makePayload({ event: 'problem', ...base, problem: first.reason, path: first.path ?? '', reason, since: formatLocalInstant(seenAt) }) });
          break;
        }
      }
    }
    for (const g of d.resolve) {
      const first = g.rows[0] as OpenRow;
      const reasons = g.rows.map((r) => r.reason);
      const goneAt = Math.max(...g.rows.map((r) => r.gone_ms ?? now));
      const base = { event: 'resolved' as const, channel: this.channelName, reasons, url: this.urlOf(first.order_id), since: formatLocalInstant(goneAt), resolves: first.kind };
      switch (first.kind) {
        case 'attention':
        case 'stale': {
          const id = first.order_id ?? '';
          const c = card(id);
          out.push({ grp: g.grp, payload: makePayload({ ...base, order_id: id, ...orderFacts(c), reason: resolvedOrderWords(first.kind, c) }) });
          break;
        }
        case 'problem':
          out.push({ grp: g.grp, payload: makePayload({ ...base, problem: first.reason, path: first.path ?? '', reason: resolvedProblemWords(first.reason, first.path ?? '') }) });
          break;
      }
    }
    return out;
  }

  /** Starts a target's delivery loop unless it runs (or wakes it from a wait for a retry). */
  private kick(q: Queue): void {
    if (this.stopped) return;
    if (q.running) return void q.wakeUp?.();
    q.running = this.deliverAll(q).finally(() => {
      q.running = null;
    });
  }

  /** Delivers a target's messages in order, one at a time, until it owes none (or the engine stops). */
  private async deliverAll(q: Queue): Promise<void> {
    const maxAttempts = Math.max(1, this.opts.maxAttempts ?? 5);
    const backoff = this.opts.backoffMs ?? 1000;
    const timeout = this.opts.timeoutMs ?? 10_000;
    while (!this.stopped) {
      const next = nextPending(this.db, q.id);
      if (!next) return;
      const wait = next.next_ms - this.clock();
      if (wait > 0) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, wait);
          q.wakeUp = () => {
            clearTimeout(t);
            resolve();
          };
        });
        q.wakeUp = null;
        continue;
      }
      let payload: AlertPayload;
      try {
        payload = JSON.parse(next.payload) as AlertPayload;
      } catch {
        recordFailure(this.db, next.id, q.id, this.clock(), 'stored payload unreadable', null);
        continue;
      }
      const r = await attempt(q.target, payload, timeout, this.stopping.signal, this.opts.userAgent ?? 'claimboard');
      if (this.stopped) return; // abandoned: still owed at the next start
      const now = this.clock();
      if (r.ok) {
        recordSuccess(this.db, next.id, q.id, now);
        if (q.failing) this.log(`alerts: ${q.label}: delivering again`);
        q.failing = false;
        continue;
      }
      const attempts = next.attempts + 1;
      const final = !r.retry || attempts >= maxAttempts;
      recordFailure(this.db, next.id, q.id, now, r.error, final ? null : now + Math.min(backoff * 2 ** (attempts - 1), MAX_BACKOFF_MS));
      if (final) this.log(`alerts: ${q.label}: gave up on a ${payload.event} alert after ${attempts} attempt${attempts > 1 ? 's' : ''}: ${r.error}`);
      else if (!q.failing) this.log(`alerts: ${q.label}: ${r.error}; retrying`);
      q.failing = true;
    }
  }
}
