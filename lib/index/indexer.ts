import 'server-only';
/**
 * The indexer: keeps the SQLite index equal to what the pure core derives from the folder
 * (DESIGN.md "Shape"; LEDGER.md §1.2, §6).
 *
 * - Watcher events (@parcel/watcher) are hints; a periodic stat rescan is the truth.
 * - A file is read again only when its stat identity (size, mtime, ctime, inode, type) changed.
 * - Signature outcomes and ledger reports are remembered per unchanged file, so a re-derive
 *   costs no cryptography for files that did not change.
 * - Every batch is derived and stored in one transaction; changed orders go to the change feed.
 * - Staleness moves with the clock: a timer re-derives when the next card may cross its
 *   stale time, with no file changing.
 * One process writes the index; request handlers open it read-only.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Stats } from 'node:fs';
import type { DB } from './db';
import { assertChannelRoot, entryFromStat, walkChannel } from './read-channel';
import { nodeVerify } from './node-verify';
import {
  deriveOutcomes,
  readEntry,
  type ChannelEntry,
  type ChannelState,
  type FileOutcome,
} from '../ledger/channel';
import type { LedgerFileReport } from '../ledger/ledger-file';
import type { Ed25519Verify, SignatureMemo } from '../ledger/verify';
import { claimHistory, orderTimeline } from '../ledger/timeline';
import type { AgentSummary, IndexProgress, OrderFile, OrderResponse } from '../api/types';
import type { Card } from '../ledger/derive';

/** What the indexer remembers of one path. */
interface FileState {
  readonly stat: string;
  readonly type: ChannelEntry['type'];
  readonly arrivalMs: number;
  readonly firstSeenMs: number;
  readonly outcome: FileOutcome;
}

export interface IndexerOptions {
  /** The channel root. */
  readonly root: string;
  readonly db: DB;
  /** stale_after, ms (LEDGER.md §6). */
  readonly staleAfterMs: number;
  /** Configured operators (CLAIMBOARD_OPERATORS); empty: roster roles. */
  readonly operators?: readonly string[];
  /** This machine's clock, ms (default Date.now). */
  readonly clock?: () => number;
  /** Full stat rescan period, ms (default 10 000). */
  readonly rescanMs?: number;
  /** Subscribe to folder events (default true). */
  readonly watch?: boolean;
  /** Progress and notices, one line each. */
  readonly log?: (line: string) => void;
  /** The Ed25519 primitive (default node:crypto). */
  readonly verify?: Ed25519Verify;
}

const statKey = (st: Stats): string =>
  `${st.isSymbolicLink() ? 'l' : st.isDirectory() ? 'd' : st.isFile() ? 'f' : 'o'}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;

const typeOf = (st: Stats): ChannelEntry['type'] =>
  st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';

/** The order a path belongs to, by its place (`tasks/<id>/...`), or null. */
function orderDirOf(rel: string): string | null {
  const parts = rel.split('/');
  return parts[0] === 'tasks' && parts.length >= 2 ? (parts[1] ?? null) : null;
}

export class Indexer {
  private readonly files = new Map<string, FileState>();
  private readonly sigMemo = new Map<string, { key: string; ok: boolean }>();
  /** Paths whose signature outcome was computed since the last commit. */
  private dirtySig = new Set<string>();
  private readonly ledgerMemo = new Map<string, { text: string; keys: string; report: LedgerFileReport }>();
  private readonly cardJson = new Map<string, string>();
  private readonly viewJson = new Map<string, string>();
  private readonly pins = new Map<string, string>();
  private readonly clock: () => number;
  private readonly verify: Ed25519Verify;
  private readonly log: (line: string) => void;
  private pending = new Set<string>();
  private pendingAll = false;
  private pumpTimer: NodeJS.Timeout | null = null;
  private staleTimer: NodeJS.Timeout | null = null;
  private rescanTimer: NodeJS.Timeout | null = null;
  private subscription: { unsubscribe(): Promise<void> } | null = null;
  private stopped = false;
  private verified = 0;
  private progress: IndexProgress = { phase: 'starting', files_seen: 0, files_read: 0, files_verified: 0, ready_at_ms: null };
  /** The last derived state (tests and the serve command read it). */
  state: ChannelState | null = null;

  constructor(private readonly opts: IndexerOptions) {
    this.clock = opts.clock ?? Date.now;
    this.log = opts.log ?? (() => {});
    const base = opts.verify ?? nodeVerify;
    this.verify = (k, m, s) => {
      this.verified++;
      if (this.verified % 5000 === 0 && this.progress.phase !== 'ready') {
        this.setProgress({ files_verified: this.verified });
      }
      return base(k, m, s);
    };
  }

  private get memo(): SignatureMemo {
    const m = this.sigMemo;
    return {
      get: (p, key) => {
        const v = m.get(p);
        return v && v.key === key ? v.ok : undefined;
      },
      set: (p, key, ok) => {
        m.set(p, { key, ok });
        this.dirtySig.add(p);
      },
    };
  }

  private setProgress(p: Partial<IndexProgress>): void {
    this.progress = { ...this.progress, ...p };
    this.opts.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run('progress', JSON.stringify(this.progress));
  }

  /**
   * First index: loads what the database remembers, stats the whole folder, reads only what
   * changed (everything, on a cold start), derives and stores; then watches. Throws
   * ChannelUnreadableError when the root is not a channel.
   */
  async start(): Promise<void> {
    assertChannelRoot(this.opts.root);
    const db = this.opts.db;
    const t0 = this.clock();
    db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run('channel', path.resolve(this.opts.root));
    db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run('stale_after_ms', String(this.opts.staleAfterMs));
    for (const r of db.prepare('SELECT name, public_key FROM pins').all() as { name: string; public_key: string }[]) {
      this.pins.set(r.name, r.public_key);
    }
    const known = new Map<string, { stat: string; type: string; arrival_ms: number; first_seen_ms: number; outcome: string; sig_key: string | null; sig_ok: number | null }>();
    for (const r of db.prepare('SELECT * FROM files').iterate() as Iterable<{ path: string; stat: string; type: string; arrival_ms: number; first_seen_ms: number; outcome: string; sig_key: string | null; sig_ok: number | null }>) {
      known.set(r.path, r);
    }
    for (const r of db.prepare('SELECT order_id, card, view FROM cards').iterate() as Iterable<{ order_id: string; card: string; view: string }>) {
      this.cardJson.set(r.order_id, r.card);
      this.viewJson.set(r.order_id, r.view);
    }
    this.setProgress({ phase: 'scanning' });
    this.log(known.size > 0 ? `index: warm start, ${known.size} files remembered` : 'index: cold start');

    // Stat everything; reuse remembered outcomes for unchanged files.
    const seen: { rel: string; st: Stats }[] = [];
    walkChannel(this.opts.root, (rel, st) => {
      seen.push({ rel, st });
      if (seen.length % 10000 === 0) this.setProgress({ files_seen: seen.length });
    });
    this.setProgress({ phase: 'reading', files_seen: seen.length });
    let read = 0;
    let lastLog = this.clock();
    const upserts: string[] = [];
    for (const { rel, st } of seen) {
      const key = statKey(st);
      const k = known.get(rel);
      if (k && k.stat === key) {
        this.files.set(rel, { stat: key, type: typeOf(st), arrivalMs: k.arrival_ms, firstSeenMs: k.first_seen_ms, outcome: JSON.parse(k.outcome) as FileOutcome });
        if (k.sig_key !== null && k.sig_ok !== null) this.sigMemo.set(rel, { key: k.sig_key, ok: k.sig_ok === 1 });
      } else {
        this.readOne(rel, st, k?.first_seen_ms);
        upserts.push(rel);
        read++;
        if (read % 2000 === 0) {
          this.setProgress({ files_read: read });
          if (this.clock() - lastLog > 2000) {
            lastLog = this.clock();
            this.log(`index: read ${read} of ${seen.length} files`);
          }
        }
      }
      known.delete(rel);
    }
    this.setProgress({ phase: 'deriving', files_read: read });
    const removed = [...known.keys()];
    this.commit(upserts, removed, true);
    this.setProgress({ phase: 'ready', files_verified: this.verified, ready_at_ms: this.clock() });
    this.log(
      `index: ready in ${((this.clock() - t0) / 1000).toFixed(1)} s: ${seen.length} files seen, ${read} read, ${this.verified} signatures verified, ${this.state?.orders.length ?? 0} orders`,
    );
    if (this.stopped) return;
    if (this.opts.watch !== false) await this.subscribe();
    const rescanMs = this.opts.rescanMs ?? 10_000;
    this.rescanTimer = setInterval(() => this.request(null), rescanMs);
    this.rescanTimer.unref?.();
  }

  /** Stops watching and timers. The database stays open (its owner closes it). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of [this.pumpTimer, this.staleTimer]) if (t) clearTimeout(t);
    if (this.rescanTimer) clearInterval(this.rescanTimer);
    this.pumpTimer = this.staleTimer = this.rescanTimer = null;
    const sub = this.subscription;
    this.subscription = null;
    if (sub) await sub.unsubscribe();
  }

  private async subscribe(): Promise<void> {
    try {
      const watcher = await import('@parcel/watcher');
      const root = path.resolve(this.opts.root);
      this.subscription = await watcher.subscribe(
        root,
        (err, events) => {
          if (err) {
            this.request(null); // the watcher lost track: rescan
            return;
          }
          for (const e of events) {
            const rel = path.relative(root, e.path).split(path.sep).join('/');
            if (rel && !rel.startsWith('..')) this.pending.add(rel);
          }
          this.schedule(30);
        },
        { ignore: ['**/.stversions/**', '**/.git/**'] },
      );
    } catch (e) {
      this.log(`index: folder events unavailable (${e instanceof Error ? e.message : String(e)}); relying on the periodic rescan`);
    }
  }

  /** Asks for an update of `rel` (null: a full rescan) soon. */
  request(rel: string | null): void {
    if (rel === null) this.pendingAll = true;
    else this.pending.add(rel);
    this.schedule(rel === null ? 0 : 30);
  }

  private schedule(ms: number): void {
    if (this.stopped || this.pumpTimer) return;
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = null;
      try {
        this.pump();
      } catch (e) {
        this.log(`index: update failed, will rescan: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
        this.pendingAll = true;
        this.schedule(1000);
      }
    }, ms);
  }

  /** Processes pending paths (or a full rescan), then derives and stores. Synchronous. */
  pump(): void {
    const all = this.pendingAll;
    const paths = this.pending;
    this.pendingAll = false;
    this.pending = new Set();
    const { upserts, removed } = all ? this.rescan() : this.refresh(paths);
    this.commit(upserts, removed, false);
  }

  /** Full stat walk: what changed since the last look. */
  rescan(): { upserts: string[]; removed: string[] } {
    const upserts: string[] = [];
    const present = new Set<string>();
    try {
      assertChannelRoot(this.opts.root);
    } catch (e) {
      this.log(`index: ${e instanceof Error ? e.message : String(e)}; keeping the last board`);
      return { upserts, removed: [] };
    }
    walkChannel(this.opts.root, (rel, st) => {
      present.add(rel);
      const cur = this.files.get(rel);
      if (!cur || cur.stat !== statKey(st)) {
        this.readOne(rel, st, cur?.firstSeenMs);
        upserts.push(rel);
      }
    });
    const removed = [...this.files.keys()].filter((p) => !present.has(p));
    for (const p of removed) this.forget(p);
    return { upserts, removed };
  }

  /** Re-stats the given paths (and walks new directories among them). */
  private refresh(paths: Set<string>): { upserts: string[]; removed: string[] } {
    const upserts: string[] = [];
    const removed: string[] = [];
    const visit = (rel: string, st: Stats) => {
      const cur = this.files.get(rel);
      if (!cur || cur.stat !== statKey(st)) {
        this.readOne(rel, st, cur?.firstSeenMs);
        upserts.push(rel);
      }
    };
    for (const rel of paths) {
      const parts = rel.split('/');
      if (parts.some((p) => p.startsWith('.')) || parts.length > 3) continue;
      let st: Stats | null = null;
      try {
        st = fs.lstatSync(path.join(this.opts.root, rel));
      } catch {
        st = null;
      }
      if (!st) {
        // Gone: it and anything under it.
        for (const p of [...this.files.keys()]) {
          if (p === rel || p.startsWith(rel + '/')) {
            this.forget(p);
            removed.push(p);
          }
        }
        continue;
      }
      visit(rel, st);
      if (st.isDirectory() && parts.length < 3) {
        // A new or renamed directory: walk it.
        const sub = path.join(this.opts.root, rel);
        walkChannel(sub, (r, s) => {
          const full = `${rel}/${r}`;
          if (full.split('/').length <= 3) visit(full, s);
        });
      }
    }
    return { upserts, removed };
  }

  private readOne(rel: string, st: Stats, firstSeenMs: number | undefined): void {
    const entry = entryFromStat(this.opts.root, rel, st);
    const outcome = readEntry(entry);
    this.sigMemo.delete(rel);
    this.ledgerMemo.delete(rel);
    this.files.set(rel, { stat: statKey(st), type: entry.type, arrivalMs: entry.arrivalMs, firstSeenMs: firstSeenMs ?? this.clock(), outcome });
  }

  private forget(rel: string): void {
    this.files.delete(rel);
    this.sigMemo.delete(rel);
    this.ledgerMemo.delete(rel);
  }

  /** Derives the whole channel from what is remembered (no reading, no repeated crypto). */
  private derive(): ChannelState {
    const outcomes: FileOutcome[] = [];
    const dirs: { path: string; type: ChannelEntry['type'] }[] = [];
    for (const [p, f] of this.files) {
      outcomes.push(f.outcome);
      if (f.type === 'dir') dirs.push({ path: p, type: 'dir' });
    }
    const lm = this.ledgerMemo;
    return deriveOutcomes(outcomes, dirs, {
      nowMs: this.clock(),
      staleAfterMs: this.opts.staleAfterMs,
      operators: this.opts.operators,
      pins: this.pins,
      verify: this.verify,
      memo: this.memo,
      ledgerMemo: {
        get: (p, text, keys) => {
          const v = lm.get(p);
          return v && v.text === text && v.keys === keys ? v.report : undefined;
        },
        set: (p, text, keys, report) => void lm.set(p, { text, keys, report }),
      },
    });
  }

  /**
   * Derives and stores in one transaction: changed files, new pins, every card that changed,
   * the views of orders whose files or card changed, problems, ledger files, agents, holds,
   * runs, and the change feed. Then schedules the next clock-driven re-derive.
   */
  private commit(upserts: readonly string[], removed: readonly string[], first: boolean): void {
    const db = this.opts.db;
    const state = this.derive();
    this.state = state;
    const now = this.clock();
    const touchedOrders = new Set<string>();
    for (const p of [...upserts, ...removed]) {
      const o = orderDirOf(p);
      if (o) touchedOrders.add(o.toLowerCase());
    }

    const upsertFile = db.prepare(
      'INSERT OR REPLACE INTO files (path, stat, type, arrival_ms, first_seen_ms, outcome, sig_key, sig_ok) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const deleteFile = db.prepare('DELETE FROM files WHERE path = ?');
    const upsertCard = db.prepare(
      'INSERT OR REPLACE INTO cards (order_id, lane, state, holder, agents, flags, search, sort_ms, card, view) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const deleteCard = db.prepare('DELETE FROM cards WHERE order_id = ?');
    const addChange = db.prepare('INSERT INTO changes (order_id, at_ms) VALUES (?, ?)');
    const deleteHolds = db.prepare('DELETE FROM holds WHERE order_id = ?');
    const addHold = db.prepare('INSERT INTO holds (order_id, agent, history) VALUES (?, ?, ?)');
    const upsertRun = db.prepare(`
      INSERT INTO runs (order_id, agent, run, pid, first_arrival_ms, last_arrival_ms, last_writer_at, writer_offset_ms, beats)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)
      ON CONFLICT (order_id, agent, run) DO UPDATE SET
        pid = excluded.pid, last_arrival_ms = excluded.last_arrival_ms, last_writer_at = excluded.last_writer_at,
        writer_offset_ms = excluded.writer_offset_ms,
        beats = runs.beats + (excluded.last_arrival_ms <> runs.last_arrival_ms)`);

    db.transaction(() => {
      for (const p of upserts) {
        const f = this.files.get(p);
        if (!f) continue;
        const sig = this.sigMemo.get(p);
        upsertFile.run(p, f.stat, f.type, f.arrivalMs, f.firstSeenMs, JSON.stringify(f.outcome), sig?.key ?? null, sig ? (sig.ok ? 1 : 0) : null);
        const o = f.outcome;
        if (o.status === 'record' && o.record.kind === 'heartbeat') {
          const r = o.record;
          upsertRun.run(o.orderId?.toLowerCase() ?? r.order_id, r.agent, r.run, r.pid, f.arrivalMs, f.arrivalMs, r.at.text, r.at.epochMs - f.arrivalMs);
        }
      }
      for (const p of removed) deleteFile.run(p);
      // Signature outcomes computed in this derive (new files, or a roster change) are kept.
      const setSig = db.prepare('UPDATE files SET sig_key = ?, sig_ok = ? WHERE path = ?');
      for (const p of this.dirtySig) {
        const sig = this.sigMemo.get(p);
        if (sig) setSig.run(sig.key, sig.ok ? 1 : 0, p);
      }
      this.dirtySig = new Set();
      for (const [name, key] of state.newPins) {
        if (!this.pins.has(name)) {
          this.pins.set(name, key);
          db.prepare('INSERT OR IGNORE INTO pins (name, public_key, pinned_at_ms) VALUES (?, ?, ?)').run(name, key, now);
        }
      }

      const live = new Set<string>();
      const changed: string[] = [];
      for (const card of state.orders) {
        live.add(card.order_id);
        const json = JSON.stringify(card);
        const cardChanged = this.cardJson.get(card.order_id) !== json;
        const view = state.views.get(card.order_id);
        if (!cardChanged && !touchedOrders.has(card.order_id)) continue;
        const viewJson = view ? JSON.stringify(this.viewOf(card, view)) : '{}';
        if (!cardChanged && this.viewJson.get(card.order_id) === viewJson) continue;
        this.cardJson.set(card.order_id, json);
        this.viewJson.set(card.order_id, viewJson);
        const involved = new Set<string>([...(card.holder ? [card.holder] : []), ...card.other_runs, ...card.late_results]);
        if (view) for (const c of view.folder.claims) involved.add(c.record.agent);
        upsertCard.run(
          card.order_id,
          card.lane,
          card.state,
          card.holder,
          ` ${[...involved].join(' ')} `,
          ` ${card.flags.join(' ')} `,
          [card.order_id, card.holder ?? '', card.project_id, card.reason ?? '', card.state, ...card.flags].join(' ').toLowerCase(),
          card.since_ms ?? view?.folder.order.arrivalMs ?? 0,
          json,
          viewJson,
        );
        deleteHolds.run(card.order_id);
        if (view) for (const h of claimHistory(view, card)) addHold.run(card.order_id, h.agent, JSON.stringify(h));
        changed.push(card.order_id);
      }
      for (const id of [...this.cardJson.keys()]) {
        if (live.has(id)) continue;
        deleteCard.run(id);
        deleteHolds.run(id);
        this.cardJson.delete(id);
        this.viewJson.delete(id);
        changed.push(id);
      }

      db.prepare('DELETE FROM problems').run();
      const addProblem = db.prepare('INSERT INTO problems (path, problem, detail, line, order_id) VALUES (?, ?, ?, ?, ?)');
      for (const p of state.problems) addProblem.run(p.path, p.problem, p.detail, p.line ?? null, p.order_id ?? null);
      db.prepare('DELETE FROM ledger_files').run();
      const addLedger = db.prepare('INSERT INTO ledger_files (path, entries, intact, broken_at) VALUES (?, ?, ?, ?)');
      for (const [p, r] of Object.entries(state.ledger)) addLedger.run(p, r.entries, r.intact ? 1 : 0, r.broken_at ?? null);
      db.prepare('DELETE FROM agents').run();
      const addAgent = db.prepare('INSERT INTO agents (name, summary) VALUES (?, ?)');
      for (const a of this.agentSummaries(state)) addAgent.run(a.name, JSON.stringify(a));

      if (first) addChange.run('*', now);
      else for (const id of changed) addChange.run(id, now);
      db.prepare('DELETE FROM changes WHERE seq < (SELECT MAX(seq) FROM changes) - 10000').run();
    })();
    this.scheduleStaleTimer(state.nextChangeMs);
  }

  private scheduleStaleTimer(next: number | null): void {
    if (this.staleTimer) clearTimeout(this.staleTimer);
    this.staleTimer = null;
    if (next === null || this.stopped) return;
    const wait = Math.max(20, Math.min(next - this.clock() + 5, 60_000));
    this.staleTimer = setTimeout(() => {
      this.staleTimer = null;
      // Nothing to read: re-derive with the clock moved on.
      try {
        this.commit([], [], false);
      } catch (e) {
        this.log(`index: re-derive failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }, wait);
    this.staleTimer.unref?.();
  }

  private viewOf(card: Card, view: NonNullable<ReturnType<ChannelState['views']['get']>>): Omit<OrderResponse, 'card' | 'runs' | 'dependents' | 'now_ms' | 'stale_after_ms'> {
    const o = view.folder.order.record;
    return {
      order: {
        id: o.id,
        project_id: o.project_id,
        issued_by: o.issued_by,
        assigned_to: o.assigned_to,
        created_at: o.created_at.text,
        requires_review: o.requires_review,
        requires_approval: o.requires_approval,
        depends_on: o.depends_on,
        payload: o.payload,
      },
      timeline: orderTimeline(view),
      files: view.files
        .filter((f): f is Extract<FileOutcome, { status: 'record' | 'problem' }> => f.status === 'record' || f.status === 'problem')
        .map((f): OrderFile =>
          f.status === 'record'
            ? { path: f.path, arrival_ms: f.arrivalMs, status: 'record', kind: f.record.kind }
            : { path: f.path, arrival_ms: f.arrivalMs, status: 'problem', kind: f.kind, problem: f.problem, detail: f.detail },
        ),
    };
  }

  private agentSummaries(state: ChannelState): AgentSummary[] {
    const holding = new Map<string, number>();
    for (const c of state.orders) if (c.holder) holding.set(c.holder, (holding.get(c.holder) ?? 0) + 1);
    const offsets = new Map<string, number[]>();
    for (const f of this.files.values()) {
      const o = f.outcome;
      if (o.status === 'record' && o.record.kind === 'heartbeat') {
        const list = offsets.get(o.record.agent) ?? [];
        list.push(o.record.at.epochMs - f.arrivalMs);
        offsets.set(o.record.agent, list);
      }
    }
    const retired = new Set(state.retirements.map((r) => r.record.agent));
    const changedKeys = new Set(state.keyChanges.map((k) => k.name));
    return [...state.roster.entries.values()].map((e) => {
      const offs = (offsets.get(e.name) ?? []).sort((a, b) => a - b);
      return {
        name: e.name,
        role: e.role,
        is_operator: state.roster.operators.has(e.name),
        retired: retired.has(e.name),
        public_key: e.public_key,
        key_changed: changedKeys.has(e.name),
        holding: holding.get(e.name) ?? 0,
        last_arrival_ms: state.lastArrivalByAgent.get(e.name) ?? null,
        clock_offset_ms: offs.length ? (offs[Math.floor(offs.length / 2)] ?? null) : null,
      };
    });
  }
}
