import 'server-only';
/**
 * What the real ferry (0.4.1) writes into a channel at the moments that shape a board, built from
 * the record writers in write.ts, for the demo's story (scenario.ts) and its simulated fleet
 * (fleet.ts). Source references: O/ = ferry's ferryman-ops crate, C/ = its ferryman-channel
 * crate, CLI/ = its command line.
 *
 * - {@link workerStart}: a worker's startup recovery (O/agent.rs `recover_own_tasks`): first its
 *   dead runs, every order it holds with a heartbeat of its own left behind, released `worker died
 *   mid-run` (the heartbeat file stays for ever); then its orphans, every order it holds with no
 *   result and no heartbeat of its own, released `orphaned at startup`. "Holds" is ferry's
 *   `holder()`: the assignee of an addressed order whatever releases exist, else the earliest active
 *   claim; so an order addressed to the worker is released before it has ever claimed it.
 * - {@link claimOrder}: `claim_order` (a claim file only when there is none: ferry never rewrites
 *   one) and the worker's `claim` ledger line.
 * - {@link startRun}: the start of `do_work`: every valid interrupt on the order the worker has not
 *   acknowledged is acknowledged (`interrupt.<issuer>.<agent>.acked.json`); a kill or pause then
 *   deletes the worker's own claim (C/interrupt.rs `abandon_claim`) and the run does not happen; a
 *   steer is folded into the run.
 * - {@link endRun} / {@link submitResult}: a run that ends removes its own heartbeat (C/lib.rs
 *   `remove_heartbeat`); a result is signed and logged.
 * - {@link channelRetire}: `ferry channel retire --agent A` (CLI/main.rs `Channel::Retire`): a
 *   release `retired`, signed by whoever runs it (the orchestrator), of every order A holds
 *   (ferry's `holder()`, so addressed orders too) that has no result.
 *
 * Each function reads the folder as it is on disk when called (ferry reads before it acts), so a
 * story written step by step gets exactly the files ferry would have written at each step.
 */
import fs from 'node:fs';
import path from 'node:path';
import { deriveChannel, DEFAULT_STALE_AFTER_MS, type ChannelState, type OrderView } from '../ledger/channel';
import { sameName } from '../ledger/names';
import { compareTimestamps } from '../ledger/time';
import type { Ed25519Verify } from '../ledger/verify';
import { serverVerify } from '../index/disk/verifier';
import { readChannel } from '../index/disk/read-channel';
import type { Identity } from './identity';
import { writeClaim, writeInterruptAck, writeRelease, writeResult } from './write';
import { appendLedgerLine } from './ledger-line';
import type { At } from './record-file';
import { removeOwnClaim, removeOwnHeartbeat } from './remove-own';

/** ferry's reasons, verbatim (O/agent.rs 1584, 1629; CLI/main.rs 3959). */
export const DIED_MID_RUN = 'worker died mid-run';
export const ORPHANED_AT_STARTUP = 'orphaned at startup';
export const RETIRED = 'retired';

/** Options of the functions here: when the writer acts (this machine's clock) and the verifier used to read the folder. */
export interface FerryOptions extends At {
  readonly verify?: Ed25519Verify;
}

/** The folder as ferry would read it now: only validly signed records count (C/lib.rs `read_task`). */
export function readFerryView(root: string, verify: Ed25519Verify = serverVerify): ChannelState {
  return deriveChannel(readChannel(root), { nowMs: Date.now(), staleAfterMs: DEFAULT_STALE_AFTER_MS, verify });
}

/** ferry's `holder()` of an order is `agent` (the assignee whatever releases exist, else the earliest active claim). */
function holds(view: OrderView, agent: string): boolean {
  return view.card.ferry.holder !== null && sameName(view.card.ferry.holder, agent);
}

function ownHeartbeat(view: OrderView, agent: string): boolean {
  return view.folder.heartbeats.some((h) => sameName(h.record.agent, agent));
}

/** `release_claim` (C/lib.rs 1150): ferry's own file name, rewritten when there, and the releaser's ledger line. */
function release(root: string, releaser: Identity, orderId: string, released: string, reason: string, atMs: number | undefined): void {
  writeRelease(root, releaser, orderId, released, reason, { fileName: 'ferryman', atMs });
  appendLedgerLine(
    root,
    releaser,
    { kind: 'release', summary: `released ${released}'s claim on ${orderId} (${reason})`, reference: orderId },
    { atMs },
  );
}

/** One release a worker's start wrote. */
export interface StartRelease {
  readonly order_id: string;
  readonly reason: typeof DIED_MID_RUN | typeof ORPHANED_AT_STARTUP;
}

/**
 * A ferry worker's start (O/agent.rs `recover_own_tasks`): releases its dead runs, then its
 * orphans, each a signed `release.<agent>.json` written at `opts.atMs` (which must be later than
 * the dead runs' heartbeats on the agent's own clock, as a restart is). Returns what it released,
 * in order id order within each pass.
 */
export function workerStart(root: string, agent: Identity, opts: FerryOptions = {}): StartRelease[] {
  const out: StartRelease[] = [];
  const byId = (s: ChannelState) => [...s.views.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // Dead runs (release_own_dead_runs): a heartbeat of its own, whatever the order's state.
  for (const [id, view] of byId(readFerryView(root, opts.verify))) {
    if (!ownHeartbeat(view, agent.name) || !holds(view, agent.name)) continue;
    release(root, agent, id, agent.name, DIED_MID_RUN, opts.atMs);
    out.push({ order_id: id, reason: DIED_MID_RUN });
  }
  // Orphans (reclaim_own_orphans), on the folder as the first pass left it.
  for (const [id, view] of byId(readFerryView(root, opts.verify))) {
    if (!holds(view, agent.name) || view.card.latest_revision !== null || ownHeartbeat(view, agent.name)) continue;
    release(root, agent, id, agent.name, ORPHANED_AT_STARTUP, opts.atMs);
    out.push({ order_id: id, reason: ORPHANED_AT_STARTUP });
  }
  return out;
}

/**
 * `claim_order` (C/lib.rs 1062) as the worker loop calls it: writes `claim.<agent>.json` only when
 * there is none (a released claim stays released; re-claiming keeps the original time), then the
 * worker's `claim` ledger line, every time. Returns whether a claim file was written.
 */
export function claimOrder(root: string, agent: Identity, orderId: string, opts: At = {}): boolean {
  const exists = fs.existsSync(path.join(root, 'tasks', orderId, `claim.${agent.name}.json`));
  if (!exists) writeClaim(root, agent, orderId, opts);
  appendLedgerLine(root, agent, { kind: 'claim', summary: `claimed order ${orderId}`, reference: orderId }, opts);
  return !exists;
}

/** What the start of a run did with the order's interrupts. */
export interface RunStart {
  /** `kill` or `pause` when one was honoured: the claim file is gone and the run does not happen. */
  readonly stopped: 'kill' | 'pause' | null;
  /** The note of the last steer folded into the run, or null. */
  readonly steer: string | null;
  /** The issuers whose interrupts this start acknowledged, in `created_at` order. */
  readonly acknowledged: readonly string[];
}

/**
 * The start of ferry's `do_work` (O/agent.rs 2150): each valid interrupt on the order (`view`:
 * the order as read before the run) without this agent's acknowledgement file is acknowledged,
 * oldest first; a kill or pause deletes the agent's own claim, logs `killed|paused <id> on
 * interrupt from <issuer>` and stops there. Writes nothing when there is nothing pending.
 */
export function startRun(root: string, agent: Identity, orderId: string, view: OrderView | undefined, opts: At = {}): RunStart {
  const pending = (view?.folder.interrupts ?? [])
    .map((i) => i.record)
    .filter((i) => !fs.existsSync(path.join(root, 'tasks', orderId, `interrupt.${i.issued_by}.${agent.name}.acked.json`)))
    .sort((a, b) => compareTimestamps(a.created_at, b.created_at));
  const acknowledged: string[] = [];
  let steer: string | null = null;
  for (const i of pending) {
    writeInterruptAck(root, agent, orderId, i.issued_by, opts);
    acknowledged.push(i.issued_by);
    if (i.action === 'kill' || i.action === 'pause') {
      removeOwnClaim(root, agent, orderId);
      appendLedgerLine(
        root,
        agent,
        { kind: 'interrupt', summary: `${i.action === 'kill' ? 'killed' : 'paused'} ${orderId} on interrupt from ${i.issued_by}`, reference: orderId },
        opts,
      );
      return { stopped: i.action, steer, acknowledged };
    }
    steer = i.note;
  }
  return { stopped: null, steer, acknowledged };
}

/** A run that ends (finished or failed, not died) removes its own heartbeat, as the run's `Drop` does. */
export function endRun(root: string, agent: Identity, orderId: string): void {
  removeOwnHeartbeat(root, agent, orderId);
}

/** The end of a finished run (O/agent.rs 2327): heartbeat removed, signed result, `result` ledger line. */
export function submitResult(root: string, agent: Identity, orderId: string, revision: number, payload: unknown, opts: At = {}): void {
  endRun(root, agent, orderId);
  writeResult(root, agent, orderId, revision, payload, opts);
  appendLedgerLine(root, agent, { kind: 'result', summary: `submitted revision ${revision} for ${orderId}`, reference: orderId }, opts);
}

/**
 * `ferry channel retire --agent <agent>` run as `releaser` (CLI/main.rs 3959): a release `retired`
 * of every order whose ferry holder is `agent` and that has no result, addressed orders included.
 * Writes no retirement file (that is claimboard's extension). Returns the order ids released.
 */
export function channelRetire(root: string, releaser: Identity, agent: string, opts: FerryOptions = {}): string[] {
  const out: string[] = [];
  const state = readFerryView(root, opts.verify);
  for (const id of [...state.views.keys()].sort()) {
    const view = state.views.get(id);
    if (!view || !holds(view, agent) || view.card.latest_revision !== null) continue;
    release(root, releaser, id, agent, RETIRED, opts.atMs);
    out.push(id);
  }
  return out;
}
