import 'server-only';
/**
 * A small simulated fleet writing into a demo channel, with
 * ferryman's formats and signatures (write.ts) and what the real ferry writes at each step
 * (ferry.ts), on timers:
 *
 * - workers (fang, wisp, nebra, kestrel) claim open orders and orders offered to them (an order
 *   addressed to a worker is claimed and run even after the worker released it itself: ferry's
 *   holder is the assignee), heartbeat every `staleAfterMs / 10` (a temp+rename rewrite of
 *   `heartbeat.<agent>.json`, which gives it a new ctime), and finish (result),
 *   give up (giveup), or die;
 * - a run's start acknowledges the order's interrupts (`interrupt.<issuer>.<agent>.acked.json`);
 *   a kill or pause deletes the worker's own claim and the run does not happen, a steer is folded in;
 * - a run that ends removes its own heartbeat, as ferry does; one that dies leaves claim and
 *   heartbeat: the worker is down (nothing of it arrives, so the card goes stale `agent_silent`)
 *   until its restart, 1.5 to 3 x `staleAfterMs` later, which releases its dead runs (`worker died
 *   mid-run`, the heartbeat stays for ever) and its orphans (`orphaned at startup`, orders
 *   addressed to it that it has not run yet included), and then runs what is addressed to it;
 * - the operator `ops` reviews results of orders that require review, issues a new order now and
 *   then (some addressed to a worker) so the queue never empties, and now and then steers an
 *   order still waiting in the queue (its claimant acknowledges the steer when its run starts);
 * - each identity writes on its own skewed clock (wisp +3 h, nebra −2 h by default).
 *
 * The story's runs meant to look dead (the manifest's `abandoned`) stay as they are: a worker
 * whose restart would release one of them never dies here (ferry's restart releases every order
 * the worker holds with no live run, and the board would lose the stale cards the demo shows).
 *
 * What it decides from: the channel itself, derived every tick exactly as the board derives it
 * (this machine's clock, file ctimes), plus the demo manifest (manifest.ts, written by
 * scenario.ts) that lists the runs to keep alive and the ones never to touch. Ground rules kept: it only writes
 * files named with the acting identity (or write-once files that do not exist yet), never
 * rewrites another writer's file, deletes only what ferry deletes of its own (a worker's claim on
 * a kill or pause, its heartbeat when a run ends), honours releases and retirements made by an
 * operator from the dashboard, and stays bounded (at most `maxOrders` orders; revisions capped):
 * with `archiveAtBound` (serve's demo), before it issues a new order at the bound, it moves the finished order longest untouched out of
 * the channel into `<dir>.archive/` (archive.ts: an operator's clean-up; no order depends on it), so a demo
 * left open keeps working for hours with the folder the same size. Its options and events are
 * fleet-options.ts.
 *
 * Timers: one `setTimeout` chain; a tick is synchronous, so `stop()` never interrupts a write
 * (and every write is a dot-temp file renamed into place anyway).
 */
import fs from 'node:fs';
import { deriveChannel, type ChannelState } from '../ledger/channel';
import type { Card } from '../ledger/derive';
import type { Ed25519Verify } from '../ledger/verify';
import { serverVerify } from '../index/disk/verifier';
import { readChannel } from '../index/disk/read-channel';
import { DEFAULT_STALE_AFTER_MS } from '../ledger/channel';
import type { Identity } from './identity';
import { writeAck, writeGiveup, writeHeartbeat, writeInterrupt, writeOrder, writeReview } from './write';
import { appendLedgerLine } from './ledger-line';
import { claimOrder, endRun, startRun as ferryRunStart, submitResult, workerStart } from './ferry';
import { demoKeysDir, loadDemoIdentity } from './cast';
import { readDemoManifest, writeDemoManifest, type DemoManifest, type RunFate } from './manifest';
import { mulberry32 } from '../util/prng';
import { DemoEngines } from './engines';
import { archiveOne, archivedIds } from './archive';
import type { FleetEvent, FleetOptions } from './fleet-options';
import { parseDecisionTarget } from '../ledger/targets';
import { BoundedMemo } from '../util/bounded-memo';

/** A running fleet. */
export interface Fleet {
  /** Stops the timers; resolves once no tick is running (any write already finished). Idempotent. */
  stop(): Promise<void>;
}

interface Run {
  readonly order: string;
  readonly agent: string;
  readonly run: string;
  readonly pid: number;
  readonly fate: RunFate;
  /** Local ms when the run resolves (Infinity for `linger`). */
  readonly endsAt: number;
  lastBeat: number;
}


/** Memoizes a verifier: the folder is re-derived every tick and most signatures are old. */
function memoVerify(inner: Ed25519Verify): Ed25519Verify {
  const seen = new BoundedMemo<string, boolean>(20_000);
  return (key, message, sig) => seen.get(`${key}:${sig}:${message}`, () => inner(key, message, sig));
}

interface Template {
  readonly prefix: string;
  readonly base: number;
  readonly project: string;
  readonly repo: string;
  readonly tasks: readonly string[];
}
const TEMPLATES: readonly Template[] = [
  { prefix: 'build-api', base: 1045, project: 'atlas', repo: 'acme/atlas-api', tasks: ['Build the API image for the nightly', 'Rebuild the API image with the patched OpenSSL'] },
  { prefix: 'fix-api', base: 1045, project: 'atlas', repo: 'acme/atlas-api', tasks: ['Fix the timezone bug in invoice due dates', 'Return 409 instead of 500 on duplicate refunds', 'Fix pagination cursors on /payments'] },
  { prefix: 'test-web', base: 887, project: 'atlas', repo: 'acme/atlas-web', tasks: ['Add e2e coverage for saved filters', 'Run the visual regression suite'] },
  { prefix: 'feat-web', base: 887, project: 'atlas', repo: 'acme/atlas-web', tasks: ['Dark mode for the settings pages', 'Keyboard shortcuts on the invoices list', 'CSV import preview'] },
  { prefix: 'migrate-db', base: 314, project: 'atlas', repo: 'acme/atlas-db', tasks: ['Add an index on payments(created_at)', 'Move audit rows older than a year to cold storage'] },
  { prefix: 'docs-api', base: 1045, project: 'atlas', repo: 'acme/atlas-api', tasks: ['Document the webhook retry policy', 'Examples for the batch endpoints'] },
  { prefix: 'chore-infra', base: 91, project: 'infra', repo: 'acme/infra', tasks: ['Bump the runner images', 'Renew the staging certificates', 'Prune old container images'] },
];
const REJECT_NOTES = ['tests missing for the error path', 'please split the refactor from the fix', 'the changelog entry is missing', 'fails on the Safari job'];

const WORKING: ReadonlySet<Card['state']> = new Set(['claimed', 'stale', 'changes_requested']);
const STEER_NOTES = ['Keep the public API unchanged.', 'Target the release branch, not main.', 'Add a changelog entry.', 'Write the tests first.'];

/**
 * Whether ferry would run `c` as `agent`: a working state it holds, or an order addressed to it
 * that ferry offers it (its claim released by itself: a restart's `orphaned at startup`).
 */
function runnable(c: Card, agent: string): boolean {
  return WORKING.has(c.state) || (c.state === 'offered' && c.assigned_to === agent);
}

/**
 * Starts the simulated fleet on the demo channel at `dir` (written by scenario.ts). Reads the
 * manifest (`<parent>/<name>.fleet.json`) and the seeds in `<parent>/keys/`; throws Error when
 * either is missing. Returns at once; the first tick runs after `tickMs`.
 */
export function startFleet(dir: string, options: FleetOptions = {}): Fleet {
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  const hb = Math.max(1, staleAfterMs / 10);
  const tickMs = options.tickMs ?? Math.min(1000, Math.max(50, hb / 5));
  const maxOrders = options.maxOrders ?? 80;
  const random = mulberry32(options.seed ?? 1);
  const onError =
    options.onError ??
    ((e: unknown) => process.stderr.write(`claimboard demo fleet: ${e instanceof Error ? e.message : String(e)}\n`));
  const emit = (e: FleetEvent) => options.onEvent?.(e);

  let manifest: DemoManifest = readDemoManifest(dir);
  const offsets = { ...manifest.clock_offsets_ms, ...(options.clockOffsets ?? {}) };
  const keys = demoKeysDir(dir);
  const ops = loadDemoIdentity(keys, manifest.operator, offsets);
  const workers = new Map<string, Identity>(manifest.workers.map((w) => [w, loadDemoIdentity(keys, w, offsets)]));
  const verify = memoVerify(serverVerify);

  const abandoned = new Set(manifest.abandoned);
  /** Orders with a run the story left to go stale (`<order>/<agent>` keys): the fleet claims none of them. */
  const pinnedBy = new Map<string, string[]>();
  for (const k of manifest.abandoned) {
    const order = k.slice(0, k.lastIndexOf('/'));
    pinnedBy.set(order, [...(pinnedBy.get(order) ?? []), k.slice(k.lastIndexOf('/') + 1)]);
  }
  const runs = new Map<string, Run>();
  const engines = options.realProcesses ? new DemoEngines() : null;
  /** A run is over (ended, died, given up, taken away): its process goes too. */
  const dropRun = (k: string) => {
    runs.delete(k);
    engines?.end(k);
  };
  const reviewSeen = new Map<string, number>();
  let pending = [...manifest.runs]; // adopted on the first tick when still valid
  const down = new Map<string, number>(Object.entries(manifest.down ?? {}).filter(([w]) => workers.has(w)));
  let deaths = 0;
  let giveups = 0;
  let steers = 0;
  const paceMs = options.paceMs ?? 0;
  let lastDeath = -Infinity;
  let lastGiveup = -Infinity;
  const giveupSeen = new Map<string, number>();
  let lastIssue = Date.now();
  let lastReview = 0;
  let lastSteer = Date.now();

  const between = (lo: number, hi: number) => lo + random() * (hi - lo);
  const pick = <T>(xs: readonly T[]): T | undefined => xs[Math.floor(random() * xs.length)];
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
  const keyOf = (order: string, agent: string) => `${order}/${agent}`;

  const durationOf = (fate: RunFate) =>
    fate === 'linger' ? Infinity : fate === 'die' ? between(3, 8) * hb : fate === 'giveup' ? between(4, 10) * hb : between(5, 15) * hb;
  /**
   * `mayDie`: whether this worker may die at all (see the module comment). Few may, so those that
   * may die a quarter of their runs (dieChance, until maxDeaths): the demo shows a restart's releases early.
   */
  const newFate = (mayDie: boolean): RunFate => {
    const r = random();
    const now = Date.now();
    if (r < (options.dieChance ?? 0.25) && mayDie && deaths < (options.maxDeaths ?? 2) && now - lastDeath >= paceMs) {
      deaths++;
      lastDeath = now;
      return 'die';
    }
    if (r > 0.95 && giveups < (options.maxGiveups ?? 1) && now - lastGiveup >= paceMs) {
      giveups++;
      lastGiveup = now;
      return 'giveup';
    }
    return 'finish';
  };

  /**
   * Starts a run of `agent` on `order` now and writes its first heartbeat. `run`: one the manifest
   * wrote (adopted). Its pid is made up, no process of this machine, so with real processes the
   * run starts again here: a new run id whose heartbeats carry its process's pid (else the board
   * would read "dead: pid N is gone on this machine" beside the run's fresh heartbeats).
   */
  const startRun = (now: number, order: string, agent: Identity, fate: RunFate, run?: { run: string; pid: number }) => {
    const enginePid = engines?.start(keyOf(order, agent.name)) ?? null;
    const adopted = enginePid === null ? run : undefined;
    const r: Run = {
      order,
      agent: agent.name,
      run: adopted?.run ?? hex(32),
      pid: enginePid ?? adopted?.pid ?? 2000 + Math.floor(random() * 60000),
      fate,
      endsAt: now + durationOf(fate),
      lastBeat: now,
    };
    runs.set(keyOf(order, agent.name), r);
    writeHeartbeat(dir, agent, order, r, { atMs: now });
    emit({ kind: 'heartbeat', agent: agent.name, order_id: order });
  };

  const persistDown = () => {
    manifest = { ...manifest, down: Object.fromEntries(down) };
    writeDemoManifest(dir, manifest);
  };

  /** One step of the simulation; synchronous. */
  const tick = () => {
    const now = Date.now();

    // 0. workers that died start again: ferry's startup recovery (ferry.ts), then back to work
    for (const [name, at] of [...down]) {
      const agent = workers.get(name);
      if (now < at || !agent) continue;
      const released = workerStart(dir, agent, { atMs: now, verify });
      down.delete(name);
      persistDown();
      emit({ kind: 'restart', agent: name, order_id: '', detail: released.map((r) => `${r.order_id} (${r.reason})`).join(', ') });
    }

    const state: ChannelState = deriveChannel(readChannel(dir), { nowMs: now, staleAfterMs, verify });
    const cards = new Map(state.orders.map((c) => [c.order_id, c]));
    const retired = new Set(state.retirements.map((r) => r.record.agent));
    const up = (name: string) => workers.has(name) && !retired.has(name) && !down.has(name);
    const releasedOn = (order: string, agent: string) =>
      state.views.get(order)?.folder.releases.some((r) => r.record.released === agent) ?? false;
    /** Released by someone else (an operator's re-queue or retire): the fleet honours it. */
    const releasedByOther = (order: string, agent: string) =>
      state.views.get(order)?.folder.releases.some((r) => r.record.released === agent && r.record.releaser !== agent) ?? false;
    const claimedBy = (order: string, agent: string) =>
      state.views.get(order)?.folder.claims.some((c) => c.record.agent === agent) ?? false;
    /** A worker may die when its restart would release none of the story's pinned runs, and it runs no double run. */
    /** The story's order whose abandoned run stands (not released, by a re-queue or a restart): left as it is. */
    const pinned = (order: string) => (pinnedBy.get(order) ?? []).some((a) => !releasedOn(order, a));
    const mayDie = (name: string) =>
      !state.orders.some((c) => c.holder === name && abandoned.has(keyOf(c.order_id, name))) &&
      ![...runs.values()].some((r) => r.agent === name && r.fate === 'linger');
    /** The start of a run (ferry's do_work): interrupts acknowledged; false when a kill or pause stopped it. */
    const begin = (order: string, agent: Identity): boolean => {
      const s0 = ferryRunStart(dir, agent, order, state.views.get(order), { atMs: now });
      if (s0.acknowledged.length > 0) emit({ kind: 'interrupt', agent: agent.name, order_id: order, detail: s0.stopped ?? 'steer' });
      return s0.stopped === null;
    };

    // 0. adopt the manifest's runs once, if the order still needs them (runs already going: no new start)
    if (pending.length > 0) {
      for (const p of pending) {
        const c = cards.get(p.order_id);
        const agent = workers.get(p.agent);
        if (!c || !agent || !up(p.agent) || releasedOn(p.order_id, p.agent) || !claimedBy(p.order_id, p.agent)) continue;
        if (!WORKING.has(c.state) || (p.fate !== 'linger' && c.holder !== p.agent)) continue;
        startRun(now, p.order_id, agent, p.fate, p);
      }
      pending = [];
    }

    // 1. runs: honour releases and retirements, heartbeat, resolve
    const resolved = new Set<string>(); // orders whose run ended this tick: `state` predates it
    for (const [k, r] of [...runs]) {
      const c = cards.get(r.order);
      const agent = workers.get(r.agent);
      const valid =
        c !== undefined &&
        agent !== undefined &&
        up(r.agent) &&
        !releasedByOther(r.order, r.agent) &&
        runnable(c, r.agent) &&
        (r.fate === 'linger' || c.holder === r.agent);
      if (!valid || !agent || !c) {
        dropRun(k);
        continue;
      }
      if (now >= r.endsAt) {
        dropRun(k);
        resolved.add(r.order);
        if (r.fate === 'finish') {
          const rev = (c.latest_revision ?? 0) + 1;
          submitResult(dir, agent, r.order, rev, { summary: `${r.order}: done`, commit: hex(7), run: r.run }, { atMs: now });
          emit({ kind: 'result', agent: r.agent, order_id: r.order, detail: `revision ${rev}` });
        } else if (r.fate === 'giveup') {
          const attempts = 2 + Math.floor(random() * 3);
          endRun(dir, agent, r.order);
          writeGiveup(dir, agent, r.order, { run: r.run, reason: `run ceiling reached: ${attempts} attempts, still failing`, attempts }, { atMs: now });
          appendLedgerLine(dir, agent, { kind: 'giveup', summary: `gave up ${r.order}`, reference: r.order }, { atMs: now });
          emit({ kind: 'giveup', agent: r.agent, order_id: r.order });
        } else {
          // The worker dies with the run: its claim and heartbeat stay; nothing of it arrives until it starts again.
          for (const [k2, r2] of [...runs]) if (r2.agent === r.agent) dropRun(k2);
          down.set(r.agent, now + (options.restartAfterMs ?? between(1.5, 3) * staleAfterMs));
          persistDown();
          emit({ kind: 'die', agent: r.agent, order_id: r.order });
        }
        continue;
      }
      if (now - r.lastBeat >= hb) {
        writeHeartbeat(dir, agent, r.order, r, { atMs: now });
        r.lastBeat = now;
        emit({ kind: 'heartbeat', agent: r.agent, order_id: r.order });
      }
    }

    // 2. adopt work a live worker holds and nobody runs: changes requested, reopened, revived
    for (const c of state.orders) {
      if (!c.holder || !WORKING.has(c.state) || !up(c.holder) || resolved.has(c.order_id)) continue;
      const k = keyOf(c.order_id, c.holder);
      if (runs.has(k) || abandoned.has(k) || !claimedBy(c.order_id, c.holder) || releasedOn(c.order_id, c.holder)) continue;
      const agent = workers.get(c.holder);
      if (!agent) continue;
      if (!begin(c.order_id, agent)) continue;
      startRun(now, c.order_id, agent, newFate(mayDie(c.holder)));
      emit({ kind: 'adopt', agent: c.holder, order_id: c.order_id, detail: c.state });
    }

    // 3. idle workers claim open orders and orders offered to them (ferry's work_for)
    const taken = new Set<string>();
    for (const [name, agent] of workers) {
      if (!up(name)) continue;
      const busy = [...runs.values()].some((r) => r.agent === name && r.fate !== 'linger');
      if (busy || random() > Math.min(1, tickMs / (1.5 * hb))) continue;
      // ferry offers every open order and every order addressed to the worker, whatever the board
      // flags (a dead run's release can leave an open order with a result: ferry hands it out
      // again); the story's pinned orders are left as they are.
      const candidates = state.orders.filter(
        (c) =>
          !pinned(c.order_id) &&
          !taken.has(c.order_id) &&
          !resolved.has(c.order_id) &&
          !abandoned.has(keyOf(c.order_id, name)) &&
          ((c.state === 'open' && c.assigned_to === null && !claimedBy(c.order_id, name)) ||
            (c.state === 'offered' && c.holder === name)),
      );
      const c = pick(candidates);
      if (!c) continue;
      taken.add(c.order_id);
      claimOrder(dir, agent, c.order_id, { atMs: now });
      emit({ kind: 'claim', agent: name, order_id: c.order_id });
      if (!begin(c.order_id, agent)) continue;
      startRun(now, c.order_id, agent, newFate(mayDie(name)));
    }

    // 4. ops reviews what waits in Review (not what needs attention), one at a time, slowly
    const inReview = state.orders.filter((c) => c.lane === 'review');
    for (const id of [...reviewSeen.keys()]) if (!inReview.some((c) => c.order_id === id)) reviewSeen.delete(id);
    for (const c of inReview) if (!reviewSeen.has(c.order_id)) reviewSeen.set(c.order_id, now);
    const oldest = inReview
      .map((c) => ({ c, since: reviewSeen.get(c.order_id) ?? now }))
      .sort((a, b) => a.since - b.since)[0];
    if (oldest && now - lastReview >= 4 * hb) {
      const waited = now - oldest.since;
      if ((waited >= 8 * hb && inReview.length >= 3) || waited >= 25 * hb) {
        const rev = oldest.c.latest_revision ?? 1;
        const accepted = rev >= 3 || random() < 0.75;
        const notes = accepted ? 'looks good' : (pick(REJECT_NOTES) ?? 'needs another pass');
        writeReview(dir, ops, oldest.c.order_id, rev, accepted, notes, { atMs: now });
        appendLedgerLine(
          dir,
          ops,
          { kind: 'review', summary: `${accepted ? 'accepted' : 'sent back'} ${oldest.c.order_id} revision ${rev}`, reference: oldest.c.order_id },
          { atMs: now },
        );
        lastReview = now;
        reviewSeen.delete(oldest.c.order_id);
        emit({ kind: 'review', agent: ops.name, order_id: oldest.c.order_id, detail: accepted ? 'accepted' : 'sent back' });
      }
    }

    // 4b. ops acknowledges a give-up left in Needs attention long enough (ackAfterMs): the order is closed
    const gaveUp = state.orders.filter((c) => c.state === 'gave_up' && c.target !== undefined && parseDecisionTarget(c.target)?.kind === 'giveup');
    for (const id of [...giveupSeen.keys()]) if (!gaveUp.some((c) => c.order_id === id)) giveupSeen.delete(id);
    for (const c of gaveUp) if (!giveupSeen.has(c.order_id)) giveupSeen.set(c.order_id, now);
    const acked = options.ackAfterMs === undefined ? undefined : gaveUp.find((c) => now - (giveupSeen.get(c.order_id) ?? now) >= (options.ackAfterMs ?? Infinity));
    if (acked?.target) {
      writeAck(dir, ops, acked.order_id, acked.target, 'seen; the fleet moves on', { atMs: now });
      appendLedgerLine(dir, ops, { kind: 'ack', summary: `acknowledged ${acked.order_id}'s give-up`, reference: acked.order_id }, { atMs: now });
      giveupSeen.delete(acked.order_id);
      emit({ kind: 'ack', agent: ops.name, order_id: acked.order_id });
    }

    // 5. ops issues a new order now and then, while the channel is under maxOrders
    const open = state.orders.filter((c) => c.lane === 'queue' && c.state === 'open').length;
    const due = open < 3 && now - lastIssue >= 3 * hb;
    const archived = due && options.archiveAtBound && state.orders.length >= maxOrders ? archiveOne(dir, state, (id) => pinnedBy.has(id)) : null;
    if (archived) emit({ kind: 'archive', agent: ops.name, order_id: archived });
    if (due && state.orders.length - (archived ? 1 : 0) < maxOrders) {
      const t = pick(TEMPLATES);
      if (t) {
        let n = t.base;
        // An archived order's id is never issued again.
        for (const id of [...state.orders.map((c) => c.order_id), ...archivedIds(dir)]) {
          const m = id.startsWith(`${t.prefix}-`) ? /^(\d+)$/.exec(id.slice(t.prefix.length + 1)) : null;
          if (m) n = Math.max(n, Number(m[1]) + 1);
        }
        const id = `${t.prefix}-${n}`;
        const working = state.orders.filter((c) => c.lane === 'running').map((c) => c.order_id);
        const dep = random() < 0.2 ? pick(working) : undefined;
        const to = !dep && random() < 0.25 ? pick([...workers.keys()].filter(up)) : undefined;
        writeOrder(
          dir,
          ops,
          {
            id,
            project_id: t.project,
            payload: { task: pick(t.tasks) ?? t.prefix, repo: t.repo },
            requires_review: random() < 0.35,
            ...(dep ? { depends_on: [dep] } : {}),
            ...(to ? { assigned_to: to } : {}),
          },
          { atMs: now },
        );
        appendLedgerLine(dir, ops, { kind: 'order', summary: `issued order ${id}`, reference: id }, { atMs: now });
        lastIssue = now;
        emit({ kind: 'issue', agent: ops.name, order_id: id, ...(to ? { detail: `to ${to}` } : {}) });
      }
    }

    // 6. ops steers an order still waiting in the queue, rarely: its claimant acknowledges it when its run starts
    if (steers < (options.maxSteers ?? 2) && now - lastSteer >= Math.max(8 * hb, paceMs)) {
      const waiting = state.orders.filter(
        (c) => c.lane === 'queue' && c.state === 'open' && c.assigned_to === null && !taken.has(c.order_id) && (state.views.get(c.order_id)?.folder.interrupts.length ?? 0) === 0,
      );
      const c = pick(waiting);
      if (c) {
        writeInterrupt(dir, ops, c.order_id, 'steer', pick(STEER_NOTES) ?? 'Keep it small.', { atMs: now });
        appendLedgerLine(dir, ops, { kind: 'interrupt', summary: `steer interrupt on ${c.order_id}`, reference: c.order_id }, { atMs: now });
        steers++;
        lastSteer = now;
        emit({ kind: 'steer', agent: ops.name, order_id: c.order_id });
      }
    }
  };

  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const loop = () => {
    timer = null;
    if (stopped) return;
    try {
      if (!fs.existsSync(dir)) throw new Error(`${dir} is gone`);
      tick();
    } catch (e) {
      onError(e);
    }
    if (!stopped) timer = setTimeout(loop, tickMs);
  };
  timer = setTimeout(loop, tickMs);

  return {
    stop() {
      stopped = true;
      engines?.endAll();
      if (timer) clearTimeout(timer);
      timer = null;
      return Promise.resolve();
    },
  };
}
