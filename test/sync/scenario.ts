import 'server-only';
/**
 * claimboard over real Syncthing: the scenario that runs inside a pair of
 * Syncthing instances started by `scripts/syncthing-pair.sh BASE -- CMD`.
 *
 * Side A is a fleet: scripted workers write roster entries, orders, claims, heartbeats,
 * results and a give-up exactly as ferryman does (lib/demo/write.ts: dot-temp file, fsync,
 * rename/link). Side B is claimboard: a real Indexer (folder events on) over B's copy, with an
 * in-memory index, read back through the same queries the board uses. An operator whose
 * roster entry is written on B releases a stale claim through `applyAction`.
 *
 * This module only observes and measures; it asserts nothing. It returns a SyncReport
 * (written as JSON by scripts/sync-scenario.mjs) and test/sync/syncthing.test.ts asserts on
 * it, so every number the test judges is in the report. A wait that runs out is recorded
 * as `null` (or `settled: false`), never thrown, so the report always says how far it got.
 *
 * Over 500 lines on purpose: one scripted scenario, step by step, with what it measures beside each step.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Indexer } from '../../lib/index/indexer';
import { openMemory, type DB } from '../../lib/index/db';
import * as q from '../../lib/index/read/queries';
import { serverVerify } from '../../lib/index/disk/verifier';
import { channelStateOf } from '../../lib/index/channel-state';
import { publicKeyOf, type Identity } from '../../lib/demo/identity';
import { writeAgent, writeClaim, writeGiveup, writeHeartbeat, writeOrder, writeResult } from '../../lib/demo/write';
import type { Written } from '../../lib/demo/record-file';
import { applyAction } from '../../lib/actions/apply';
import { ledgerPrevOf } from '../../lib/actions/write';
import { actingChannel, newChannelId } from '../../lib/actions/channel-id';
import { buildAction } from '../../lib/ledger/actions';
import { nodeSign } from '../../lib/index/disk/node-sign';
import { formatLocalInstant } from '../../lib/ledger/time';
import { seedOf } from '../support/channel-builder';
import type { Card } from '../../lib/ledger/derive';
import type { OrderResponse } from '../../lib/index/types';

// ---- the report -----------------------------------------------------------------------------

/** One write and how long it took to show on the other side. */
export interface SyncStep {
  /** The scenario phase it belongs to (1: the workers; 3: the conflict's order). */
  readonly phase: number;
  readonly label: string;
  /** Where it was written: A (fleet) or B (claimboard's machine). */
  readonly side: 'A' | 'B';
  readonly path: string;
  /** ms from the write returning until the other side's file has the same bytes; null: never within the wait. */
  readonly file_ms: number | null;
  /** ms until B's board reflects it (B writes: B's board, immediately); null: never within the wait. */
  readonly board_ms: number | null;
}

export interface SyncReport {
  /** false when the scenario threw; `error` says where. */
  readonly ok: boolean;
  readonly error?: string;
  /** Phase 1: every write of the scripted workers, its delays. */
  readonly steps: SyncStep[];
  /** What an arriving file looks like on B (a heartbeat no longer rewritten), and the arrival B's card shows for it. */
  readonly arrival: {
    readonly path: string;
    readonly a_mtime_ms: number;
    readonly b_mtime_ms: number;
    readonly a_ctime_ms: number;
    readonly b_ctime_ms: number;
    /** The heartbeat arrival B's index holds on the card. */
    readonly b_index_arrival_ms: number | null;
  } | null;
  /** Phase 2: a live worker heartbeating on A, B's cards sampled continuously. */
  readonly staleness: {
    /** The stale window of B's second indexer (stale_after). */
    readonly window_ms: number;
    /** The largest board delay of phase 1 that the window was sized from. */
    readonly sized_from_ms: number;
    readonly heartbeat_interval_ms: number;
    readonly sampled_ms: number;
    /** Samples before the live order's claim had reached B (its card absent or still open). */
    readonly live_pre_claim_samples: number;
    /** Samples from the first one showing the live order claimed on B. */
    readonly live_samples: number;
    /** States of the live order's card over those samples, with counts (expected: only claimed). */
    readonly live_states: Record<string, number>;
    /** Samples in which the live order showed as stale (lane or state): must be 0. */
    readonly live_stale_samples: number;
    /** The first few such cards, with B's clock when sampled (to tell why). */
    readonly live_stale_cards: { readonly now_ms: number; readonly card: Card }[];
    /**
     * Samples, after B first showed the live heartbeat, in which the card had no heartbeat or
     * did not call it fresh: Syncthing replaces a file on the receiving side by unlinking it and
     * then renaming its temp file into place, and a pass in between sees no heartbeat.
     */
    readonly live_heartbeat_missing_samples: number;
    /** Largest age (B's clock now - the holder's heartbeat arrival on B) seen in any sample. */
    readonly live_max_heartbeat_age_ms: number | null;
    /** Heartbeats written on A, and distinct heartbeat arrivals B's index saw. */
    readonly beats_written: number;
    readonly beat_arrivals_on_b: number;
    /** Largest gap between two consecutive heartbeat arrivals on B. */
    readonly max_arrival_gap_ms: number | null;
    /** Control: a claim on A with no heartbeat must go stale on B at about arrival + window. */
    readonly control: {
      readonly stale_observed: boolean;
      readonly reason: string | null;
      /** ms from the control claim's arrival on B to the first sample showing it stale. */
      readonly stale_after_arrival_ms: number | null;
    };
  } | null;
  /** Phase 3: both sides write one claim path at about the same time. */
  readonly conflict: {
    readonly path: string;
    /** ms between the write on A and the write on B. */
    readonly write_gap_ms: number;
    readonly settled: boolean;
    readonly settle_ms: number | null;
    /** Conflict copies in the order's folder on each side, at the end. */
    readonly copies_a: string[];
    readonly copies_b: string[];
    /** The main file's bytes are identical on both sides at the end. */
    readonly main_identical: boolean;
    /** sync_conflict problems B's index holds for the order at the end. */
    readonly problems_b: { readonly path: string; readonly problem: string }[];
    readonly flags_b: string[];
    readonly holder_b: string | null;
    readonly state_b: string | null;
    /** The claims as the two sides wrote them, and what ended where (main file, conflict copy on B). */
    readonly claimed_at_a: string;
    readonly claimed_at_b: string;
    readonly main_claimed_at: string | null;
    /** Each conflict copy on B parsed as JSON (it holds the losing claim: a record never read). */
    readonly copy_contents_b: unknown[];
    /** Samples taken while it settled (and 1.5 s after), and the most claim records any showed. */
    readonly samples: number;
    readonly max_claim_records: number;
    /** Claim records at the end: on B's order page (its file list), in a fresh derivation of B's folder. */
    readonly claim_records_page_b: number;
    readonly claim_records_folder_b: number;
  } | null;
  /** Phase 4: deletes on A. */
  readonly deletes: {
    /** The conflict copies deleted on A; ms until B's problem and flag were gone. */
    readonly copies_deleted: string[];
    readonly problem_gone_ms: number | null;
    readonly copies_left_on_b: string[];
    /** The whole order directory deleted on A; ms until B's card was gone (and no problem remained). */
    readonly card_gone_ms: number | null;
    readonly dir_left_on_b: boolean;
  } | null;
  /** Phase 5: a release by claimboard on B. */
  readonly release: {
    readonly order_id: string;
    /** What B's card was when the operator decided. */
    readonly card_before: { readonly state: string; readonly holder: string | null; readonly reason: string | null };
    readonly status: number;
    readonly refusal?: string;
    readonly written: string[];
    /** ms until B's own board showed the order released (open, no holder). */
    readonly board_ms: number | null;
    /** Per written path: ms until A had the same bytes. */
    readonly reached_a_ms: Record<string, number | null>;
  } | null;
  /** Problems B's index held at the very end (expected none). */
  readonly final_problems_b: { readonly path: string; readonly problem: string }[];
  readonly timings_ms: Record<string, number>;
}

// ---- helpers --------------------------------------------------------------------------------

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `probe` every `everyMs` until it returns a non-null value or `timeoutMs` passes. */
async function until<T>(probe: () => T | null | undefined | false, timeoutMs: number, everyMs = 20): Promise<{ value: T; ms: number } | null> {
  const t0 = performance.now();
  for (;;) {
    let v: T | null | undefined | false;
    try {
      v = probe();
    } catch {
      v = null; // a file mid-rename, a card mid-update: look again
    }
    if (v !== null && v !== undefined && v !== false) return { value: v, ms: Math.round(performance.now() - t0) };
    if (performance.now() - t0 > timeoutMs) return null;
    await sleep(everyMs);
  }
}

const readOrNull = (p: string): Buffer | null => {
  try {
    return fs.readFileSync(p);
  } catch {
    return null;
  }
};

const sameBytes = (p: string, bytes: Uint8Array): boolean => {
  const b = readOrNull(p);
  return b !== null && Buffer.compare(b, Buffer.from(bytes)) === 0;
};

const claimedAt = (bytes: Uint8Array): string => (JSON.parse(Buffer.from(bytes).toString('utf8')) as { claimed_at: string }).claimed_at;

const identity = (name: string): Identity => ({ name, seedHex: seedOf(name) });

const conflictCopies = (dir: string): string[] => {
  try {
    return fs.readdirSync(dir).filter((n) => n.includes('.sync-conflict-')).sort();
  } catch {
    return [];
  }
};

/** B's board, read back as the HTTP handlers read it. */
class BoardB {
  constructor(readonly db: DB) {}
  /** GET /api/orders/:id (the card from the index, the files read fresh from B's folder). */
  order(id: string): OrderResponse | null {
    return q.order(this.db, id, Date.now());
  }
  /** The order's card as GET /api/board shows it in its lane (index only), or null when absent. */
  card(id: string): Card | null {
    for (const lane of q.board(this.db, [{ kind: 'text', neg: false, value: id }], Date.now(), false).lanes) {
      const c = lane.cards.find((x) => x.order_id === id);
      if (c) return c;
    }
    return null;
  }
  problems() {
    return q.problems(this.db).problems;
  }
  agents() {
    return q.agents(this.db, Date.now()).agents;
  }
}

/** How long a single write may take to show before the scenario gives up on it: far beyond Syncthing's delays. */
const WAIT_MS = 60_000;

export interface PairEnv {
  readonly aDir: string;
  readonly bDir: string;
}

export function pairEnvFrom(env: NodeJS.ProcessEnv): PairEnv {
  const aDir = env.STPAIR_A_DIR;
  const bDir = env.STPAIR_B_DIR;
  if (!aDir || !bDir) throw new Error('STPAIR_A_DIR / STPAIR_B_DIR are not set: run this inside syncthing-pair.sh BASE -- CMD');
  return { aDir, bDir };
}

// ---- the scenario ---------------------------------------------------------------------------

/**
 * Runs the scenario on the pair's two folders. `log` gets one line per measured step;
 * `progress` gets the report so far after each phase (so a run cut short still leaves one).
 */
export async function runScenario(
  pair: PairEnv,
  log: (line: string) => void = () => {},
  progress: (partial: SyncReport) => void = () => {},
): Promise<SyncReport> {
  const A = pair.aDir;
  const B = pair.bDir;
  const t0 = performance.now();
  const timings: Record<string, number> = {};
  const steps: SyncStep[] = [];
  let arrival: SyncReport['arrival'] = null;
  let staleness: SyncReport['staleness'] = null;
  let conflict: SyncReport['conflict'] = null;
  let deletes: SyncReport['deletes'] = null;
  let release: SyncReport['release'] = null;
  let finalProblems: SyncReport['final_problems_b'] = [];
  const snapshot = (ok: boolean, error?: string): SyncReport => ({
    ok,
    ...(error !== undefined ? { error } : {}),
    steps,
    arrival,
    staleness,
    conflict,
    deletes,
    release,
    final_problems_b: finalProblems,
    timings_ms: timings,
  });
  const mark = (name: string) => {
    timings[name] = Math.round(performance.now() - t0);
    progress(snapshot(false, `cut short after ${name}`));
  };

  const ops = identity('ops'); // issues orders, on A
  const keeper = identity('keeper'); // claimboard's operator, roster entry written on B
  const fang = identity('fang');
  const wisp = identity('wisp');
  const nebra = identity('nebra');

  const indexers: Indexer[] = [];
  let beatTimer: NodeJS.Timeout | null = null;
  const startIndexer = async (staleAfterMs: number): Promise<BoardB> => {
    const db = openMemory();
    const ix = new Indexer({ root: B, db, staleAfterMs, watch: true, verify: serverVerify, log: (l) => log(`B ${l}`) });
    indexers.push(ix);
    await ix.start();
    return new BoardB(db);
  };

  /** A write on A (or B), then: the other side's bytes, and B's board (predicate). */
  let phase = 1;
  const measure = async (label: string, side: 'A' | 'B', w: Written, onBoard: ((b: BoardB) => boolean) | null, board: BoardB): Promise<SyncStep> => {
    const other = path.join(side === 'A' ? B : A, w.rel);
    const t = performance.now();
    let fileMs: number | null = null;
    let boardMs: number | null = onBoard ? null : -1;
    while (performance.now() - t < WAIT_MS && (fileMs === null || boardMs === null)) {
      if (fileMs === null && sameBytes(other, w.bytes)) fileMs = Math.round(performance.now() - t);
      if (boardMs === null && onBoard) {
        let ok: boolean;
        try {
          ok = onBoard(board);
        } catch {
          ok = false;
        }
        if (ok) boardMs = Math.round(performance.now() - t);
      }
      if (fileMs === null || boardMs === null) await sleep(20);
    }
    const step: SyncStep = { phase, label, side, path: w.rel, file_ms: fileMs, board_ms: boardMs === -1 ? null : boardMs };
    steps.push(step);
    log(`${label}: file ${fileMs ?? 'never'} ms, board ${step.board_ms ?? (onBoard ? 'never' : '-')} ms`);
    return step;
  };

  try {
    // ---- phase 1: B's board converges on A's writes -------------------------------------
    // The fleet's channel exists on A; claimboard starts once it has reached B.
    for (const d of ['agents', 'tasks']) fs.mkdirSync(path.join(A, d));
    const dirs = await until(() => fs.existsSync(path.join(B, 'agents')) && fs.existsSync(path.join(B, 'tasks')), WAIT_MS);
    if (!dirs) throw new Error('agents/ and tasks/ made on A never reached B');
    timings.channel_dirs_reached_b = dirs.ms;
    const b1 = await startIndexer(300_000);
    mark('indexer_1_ready');

    // Roster: the fleet's entries on A, claimboard's operator on B; all at once.
    const rosterA = [
      { id: ops, role: 'operator' },
      { id: fang, role: 'worker' },
      { id: wisp, role: 'worker' },
      { id: nebra, role: 'worker' },
    ].map(({ id, role }) => ({ id, w: writeAgent(A, { name: id.name, role, capabilities: ['build'], publicKey: publicKeyOf(id) }) }));
    const keeperW = writeAgent(B, { name: keeper.name, role: 'operator', publicKey: publicKeyOf(keeper) });
    await Promise.all([
      ...rosterA.map(({ id, w }) =>
        measure(`roster ${id.name} (A)`, 'A', w, (b) => b.agents().some((a) => a.name === id.name && a.public_key === publicKeyOf(id)), b1),
      ),
      measure('roster keeper (B, operator)', 'B', keeperW, (b) => b.agents().some((a) => a.name === 'keeper' && a.is_operator), b1),
    ]);
    mark('roster');

    // Two workers at once on A, each write waited for on B before the next.
    const runFang = { run: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', pid: 4101 };
    const runWisp = { run: '0f1e2d3c4b5a69788796a5b4c3d2e1f0', pid: 4102 };
    const workerFang = async () => {
      const id = 'sync-build-1';
      let w = writeOrder(A, ops, { id, project_id: 'sync', payload: { task: 'build', n: 1 } });
      await measure(`order ${id}`, 'A', w, (b) => b.card(id)?.state === 'open', b1);
      w = writeClaim(A, fang, id);
      await measure(`claim fang ${id}`, 'A', w, (b) => {
        const c = b.card(id);
        return c?.state === 'claimed' && c.holder === 'fang';
      }, b1);
      for (const n of [1, 2]) {
        w = writeHeartbeat(A, fang, id, runFang);
        const at = (JSON.parse(Buffer.from(w.bytes).toString('utf8')) as { at: string }).at;
        await measure(`heartbeat ${n} fang ${id}`, 'A', w, (b) => {
          const c = b.card(id);
          return c?.state === 'claimed' && c.heartbeat?.at === at && c.heartbeat.run === runFang.run && c.holder_fresh === true;
        }, b1);
        await sleep(300);
      }
      w = writeResult(A, fang, id, 1, { summary: 'built', artifacts: ['app.tar'] });
      await measure(`result fang ${id} r1`, 'A', w, (b) => {
        const c = b.card(id);
        return c?.state === 'done' && c.latest_revision === 1 && c.lane === 'done';
      }, b1);
      return w;
    };
    const workerWisp = async () => {
      const id = 'sync-migrate-2';
      let w = writeOrder(A, ops, { id, project_id: 'sync', payload: { task: 'migrate', n: 2 } });
      await measure(`order ${id}`, 'A', w, (b) => b.card(id)?.state === 'open', b1);
      w = writeClaim(A, wisp, id);
      await measure(`claim wisp ${id}`, 'A', w, (b) => b.card(id)?.holder === 'wisp', b1);
      w = writeHeartbeat(A, wisp, id, runWisp);
      await measure(`heartbeat wisp ${id}`, 'A', w, (b) => b.card(id)?.heartbeat?.run === runWisp.run, b1);
      const reason = 'retry ceiling reached: schema lock held';
      w = writeGiveup(A, wisp, id, { run: runWisp.run, reason, attempts: 3 });
      const digest = w.digest;
      await measure(`give-up wisp ${id}`, 'A', w, (b) => {
        const c = b.card(id);
        return c?.state === 'gave_up' && c.reason === reason && c.target === `giveup:${digest}` && c.flags.includes('gave_up');
      }, b1);
    };
    const [resultW] = await Promise.all([workerFang(), workerWisp()]);
    mark('phase1');

    // What an arriving file looks like on B: fang's last heartbeat on sync-build-1 (not
    // rewritten since), and the arrival B's index holds for it on the card.
    {
      const rel = `tasks/${resultW.rel.split('/')[1]}/heartbeat.fang.json`;
      const sa = fs.statSync(path.join(A, rel));
      const sb = fs.statSync(path.join(B, rel));
      const hb = b1.card('sync-build-1')?.heartbeat ?? null;
      arrival = { path: rel, a_mtime_ms: sa.mtimeMs, b_mtime_ms: sb.mtimeMs, a_ctime_ms: sa.ctimeMs, b_ctime_ms: sb.ctimeMs, b_index_arrival_ms: hb?.arrival_ms ?? null };
    }

    // ---- phase 2: no fresh claim shows as stale ---------------------------------------------
    const sizedFrom = Math.max(...steps.filter((s) => s.side === 'A').map((s) => s.board_ms ?? WAIT_MS));
    phase = 2;
    const windowMs = Math.max(10_000, Math.ceil((10 * sizedFrom) / 1000) * 1000);
    // At least the pair's watcher delay (fsWatcherDelayS=1): a file rewritten faster than that
    // never settles, and Syncthing holds it back until its watcher timeout (6 x the delay);
    // observed with 1 s heartbeats: 3 arrivals on B in 15 s, gaps up to 4.8 s. (Ferryman's 30 s
    // heartbeat against Syncthing's default 10 s delay is on the safe side of this.)
    const heartbeatMs = 2000;
    await indexers[0]?.stop();
    const b2 = await startIndexer(windowMs);
    mark('indexer_2_ready');
    log(`phase 2: stale window ${windowMs} ms (10 x ${sizedFrom} ms, at least 10 s), heartbeat every ${heartbeatMs} ms`);

    const live = 'sync-live-3';
    const dead = 'sync-dead-4';
    const runLive = { run: '11112222333344445555666677778888', pid: 4103 };
    writeOrder(A, ops, { id: live, project_id: 'sync', payload: { task: 'serve', n: 3 } });
    writeOrder(A, ops, { id: dead, project_id: 'sync', payload: { task: 'index', n: 4 } });
    writeClaim(A, fang, live);
    writeHeartbeat(A, fang, live, runLive);
    const deadClaim = writeClaim(A, wisp, dead); // wisp's run never writes a heartbeat: the control
    let beats = 1;
    beatTimer = setInterval(() => {
      try {
        writeHeartbeat(A, fang, live, runLive);
        beats++;
      } catch (e) {
        log(`heartbeat write failed: ${String(e)}`);
      }
    }, heartbeatMs);

    const sampleStart = performance.now();
    const states: Record<string, number> = {};
    let liveSamples = 0;
    let preClaim = 0;
    let hbMissing = 0;
    const staleCards: { now_ms: number; card: Card }[] = [];
    let liveStale = 0;
    let maxAge: number | null = null;
    const arrivals = new Set<number>();
    let controlStaleAt: number | null = null;
    let controlReason: string | null = null;
    let deadArrivalB: number | null = null;
    const minSampleMs = windowMs + 4000;
    const maxSampleMs = windowMs + 12_000;
    while (performance.now() - sampleStart < maxSampleMs) {
      const now = Date.now();
      const lc = b2.card(live);
      if (liveSamples === 0 && lc?.state !== 'claimed') {
        preClaim++; // the order, then the claim, are still on their way
      } else if (lc === null) {
        liveSamples++;
        states.absent = (states.absent ?? 0) + 1;
      } else {
        liveSamples++;
        states[lc.state] = (states[lc.state] ?? 0) + 1;
        if (lc.state === 'stale' || lc.lane === 'stale') {
          liveStale++;
          if (staleCards.length < 5) staleCards.push({ now_ms: now, card: lc });
        }
        if (arrivals.size > 0 && (!lc.heartbeat || lc.holder_fresh !== true)) hbMissing++;
        if (lc.heartbeat) {
          arrivals.add(lc.heartbeat.arrival_ms);
          const age = now - lc.heartbeat.arrival_ms;
          maxAge = maxAge === null ? age : Math.max(maxAge, age);
        }
      }
      if (deadArrivalB === null) {
        const f = b2.order(dead)?.files.find((x) => x.path === deadClaim.rel);
        if (f) deadArrivalB = f.arrival_ms;
      }
      const dc = b2.card(dead);
      if (controlStaleAt === null && dc?.state === 'stale') {
        controlStaleAt = now;
        controlReason = dc.reason ?? null;
      }
      if (controlStaleAt !== null && performance.now() - sampleStart >= minSampleMs) break;
      await sleep(100);
    }
    const sampled = Math.round(performance.now() - sampleStart);
    clearInterval(beatTimer);
    beatTimer = null;
    const sortedArrivals = [...arrivals].sort((a, b) => a - b);
    let maxGap: number | null = null;
    for (let i = 1; i < sortedArrivals.length; i++) {
      const g = (sortedArrivals[i] ?? 0) - (sortedArrivals[i - 1] ?? 0);
      maxGap = maxGap === null ? g : Math.max(maxGap, g);
    }
    staleness = {
      window_ms: windowMs,
      sized_from_ms: sizedFrom,
      heartbeat_interval_ms: heartbeatMs,
      sampled_ms: sampled,
      live_pre_claim_samples: preClaim,
      live_samples: liveSamples,
      live_states: states,
      live_stale_samples: liveStale,
      live_stale_cards: staleCards,
      live_heartbeat_missing_samples: hbMissing,
      live_max_heartbeat_age_ms: maxAge === null ? null : Math.round(maxAge),
      beats_written: beats,
      beat_arrivals_on_b: arrivals.size,
      max_arrival_gap_ms: maxGap === null ? null : Math.round(maxGap),
      control: {
        stale_observed: controlStaleAt !== null,
        reason: controlReason,
        stale_after_arrival_ms: controlStaleAt !== null && deadArrivalB !== null ? Math.round(controlStaleAt - deadArrivalB) : null,
      },
    };
    log(`phase 2: ${JSON.stringify(staleness)}`);
    mark('phase2');

    // ---- phase 3: a conflict is a problem, never a second record -------------------------------
    phase = 3;
    const cid = 'sync-conflict-5';
    const ow = writeOrder(A, ops, { id: cid, project_id: 'sync', payload: { task: 'race', n: 5 } });
    await measure(`order ${cid}`, 'A', ow, (b) => b.card(cid)?.state === 'open', b2);
    const ta = performance.now();
    const claimA = writeClaim(A, nebra, cid);
    const claimB = writeClaim(B, nebra, cid, { atMs: Date.now() + 7 }); // another content, same path
    const gap = performance.now() - ta;
    const claimRel = claimA.rel;
    const dirA = path.join(A, 'tasks', cid);
    const dirB = path.join(B, 'tasks', cid);
    let samples = 0;
    let maxClaims = 0;
    // Claim records as B's order page lists them (GET /api/orders/:id).
    const claimRecords = (b: BoardB): number => b.order(cid)?.files.filter((f) => f.status === 'record' && f.kind === 'claim').length ?? 0;
    // The same count from a fresh derivation of B's folder (the pure core, no index).
    const derivedClaims = (): number => channelStateOf(B, { staleAfterMs: windowMs }).views.get(cid)?.folder.claims.length ?? 0;
    const settledProbe = (): boolean => {
      samples++;
      maxClaims = Math.max(maxClaims, claimRecords(b2), derivedClaims());
      const ca = conflictCopies(dirA);
      const cb = conflictCopies(dirB);
      if (ca.length === 0 || ca.join('|') !== cb.join('|')) return false;
      for (const n of ca) {
        const x = readOrNull(path.join(dirA, n));
        const y = readOrNull(path.join(dirB, n));
        if (!x || !y || Buffer.compare(x, y) !== 0) return false;
      }
      const ma = readOrNull(path.join(A, claimRel));
      const mb = readOrNull(path.join(B, claimRel));
      if (!ma || !mb || Buffer.compare(ma, mb) !== 0) return false;
      const probs = b2.problems().filter((p) => p.order_id === cid && p.problem === 'sync_conflict');
      if (probs.length !== cb.length) return false;
      return b2.card(cid)?.flags.includes('sync_conflict') ?? false;
    };
    const settled = await until(settledProbe, 25_000, 50);
    // Keep sampling a while after it settled: no second record may show up late.
    const after = performance.now();
    while (performance.now() - after < 1500) {
      try {
        settledProbe();
      } catch {
        /* mid-rename: the next sample sees it */
      }
      await sleep(50);
    }
    const cardC = b2.card(cid);
    conflict = {
      path: claimRel,
      write_gap_ms: Math.round(gap * 1000) / 1000,
      settled: settled !== null,
      settle_ms: settled?.ms ?? null,
      copies_a: conflictCopies(dirA),
      copies_b: conflictCopies(dirB),
      main_identical: (() => {
        const ma = readOrNull(path.join(A, claimRel));
        const mb = readOrNull(path.join(B, claimRel));
        return !!ma && !!mb && Buffer.compare(ma, mb) === 0;
      })(),
      problems_b: b2.problems().filter((p) => p.order_id === cid).map((p) => ({ path: p.path, problem: p.problem })),
      flags_b: [...(cardC?.flags ?? [])],
      holder_b: cardC?.holder ?? null,
      state_b: cardC?.state ?? null,
      claimed_at_a: claimedAt(claimA.bytes),
      claimed_at_b: claimedAt(claimB.bytes),
      main_claimed_at: (() => {
        const mb = readOrNull(path.join(B, claimRel));
        return mb ? claimedAt(mb) : null;
      })(),
      copy_contents_b: conflictCopies(dirB).map((n) => {
        try {
          return JSON.parse(fs.readFileSync(path.join(dirB, n), 'utf8')) as unknown;
        } catch (e) {
          return { unreadable: String(e) };
        }
      }),
      samples,
      max_claim_records: maxClaims,
      claim_records_page_b: claimRecords(b2),
      claim_records_folder_b: derivedClaims(),
    };
    log(`phase 3: ${JSON.stringify(conflict)} (claim on B written ${claimB.rel})`);
    mark('phase3');

    // ---- phase 4: deletes on A are reflected on B ----------------------------------------------
    const copies = conflictCopies(dirA);
    for (const n of copies) fs.unlinkSync(path.join(dirA, n));
    const problemGone = await until(() => {
      const probs = b2.problems().filter((p) => p.order_id === cid);
      const c = b2.card(cid);
      return probs.length === 0 && c !== null && !c.flags.includes('sync_conflict') && conflictCopies(dirB).length === 0;
    }, WAIT_MS);
    const copiesLeft = conflictCopies(dirB);
    fs.rmSync(dirA, { recursive: true });
    const cardGone = await until(
      () => b2.card(cid) === null && !b2.problems().some((p) => p.order_id === cid || p.path.startsWith(`tasks/${cid}`)) && !fs.existsSync(dirB),
      WAIT_MS,
    );
    deletes = {
      copies_deleted: copies,
      problem_gone_ms: problemGone?.ms ?? null,
      copies_left_on_b: copiesLeft,
      card_gone_ms: cardGone?.ms ?? null,
      dir_left_on_b: fs.existsSync(dirB),
    };
    log(`phase 4: ${JSON.stringify(deletes)}`);
    mark('phase4');

    // ---- phase 5: claimboard's release on B reaches A intact ---------------------------------
    const before = b2.card(dead);
    if (!before) throw new Error(`B has no card for ${dead}`);
    const ledgerPrev = ledgerPrevOf(path.join(B, `ledger.${keeper.name}.jsonl`)).prev;
    // The folder names no channel yet: this first act names it (lib/ledger/channel-binding.ts).
    const proposal = newChannelId();
    const channel = actingChannel(B, proposal);
    if ('problem' in channel) throw new Error(channel.problem);
    const req = buildAction(
      { action: 'requeue', card: before, note: 'wisp never heartbeat on this order' },
      keeper.name,
      (p) => nodeSign(keeper.seedHex, p),
      formatLocalInstant(Date.now()),
      ledgerPrev,
      channel.id,
    );
    const res = applyAction(req, { root: B, nowMs: Date.now(), staleAfterMs: windowMs, operators: [], proposedChannel: proposal, verify: serverVerify });
    const written = res.status === 201 ? [...res.written] : [];
    const tw = performance.now();
    const reached: Record<string, number | null> = {};
    const boardReleased = until(() => {
      const c = b2.card(dead);
      return c?.state === 'open' && c.holder === null;
    }, WAIT_MS);
    const arrivedA = Promise.all(
      written.map(async (rel) => {
        const bytes = fs.readFileSync(path.join(B, rel));
        const r = await until(() => sameBytes(path.join(A, rel), bytes), WAIT_MS);
        reached[rel] = r ? Math.round(performance.now() - tw) : null;
      }),
    );
    const [rb] = await Promise.all([boardReleased, arrivedA]);
    release = {
      order_id: dead,
      card_before: { state: before.state, holder: before.holder, reason: before.reason ?? null },
      status: res.status,
      ...(res.status !== 201 ? { refusal: res.reason } : {}),
      written,
      board_ms: rb?.ms ?? null,
      reached_a_ms: reached,
    };
    log(`phase 5: ${JSON.stringify(release)}`);
    mark('phase5');
    finalProblems = b2.problems().map((p) => ({ path: p.path, problem: p.problem }));
    return snapshot(true);
  } catch (e) {
    return snapshot(false, e instanceof Error ? (e.stack ?? e.message) : String(e));
  } finally {
    if (beatTimer) clearInterval(beatTimer);
    for (const ix of indexers) await ix.stop();
  }
}
