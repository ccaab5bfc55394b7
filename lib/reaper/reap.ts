import 'server-only';
/**
 * `claimboard reap`: on the machine that runs an agent, release (policy `reset`) or
 * hold for review (policy `hold`) that agent's runs whose heartbeat is stale on this machine's
 * clock AND whose pid is confirmed gone here, which is what ferry's worker does for itself at its
 * next start (O/agent.rs `release_own_dead_runs`, ADR 0011 part 3) when nothing restarts it.
 *
 * One pass: the folder is read and derived fresh (lib/index/channel-state.ts, no index), each order
 * the agent holds goes through reapStep (lib/ledger/liveness.ts: the gates and the policy), then
 * - `reset` writes the agent's own signed release exactly as ferry's `release_own_claim` does:
 *   `tasks/<id>/release.<agent>.json` {order_id, released, releaser: the agent, reason "worker
 *   died mid-run; reaped by claimboard on <host>", at, signed_by, signature}, ferry's pretty JSON,
 *   through the operator actions' writer (lib/actions/write.ts: dot temp file, fsync, link, so
 *   nothing is ever overwritten), then the ledger line ferry's `release_claim` appends to
 *   `ledger.<agent>.jsonl` (kind `release`, summary `released <a>'s claim on <id> (<reason>)`);
 * - `hold` writes nothing into the channel: the hold goes to the reaper's own state file
 *   (lib/local/reaper-state.ts), where the board can find it.
 * A dry run writes nothing anywhere and says what it would do. Every time is this machine's clock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { appendLedgerLine, ledgerPrevOf, writeNewFile } from '../actions/write';
import { channelStateOf } from '../index/channel-state';
import type { FleetAgent } from '../index/ferryman-state';
import { ChannelUnreadableError } from '../index/disk/read-channel';
import {
  judgeLiveness,
  reapReason,
  reapStep,
  releaseSummary,
  START_SLACK_MS,
  type EngineSpec,
  type Liveness,
  type ProcessFacts,
  type ReapPolicy,
  type ReapStep,
} from '../ledger/liveness';
import { naclPublicKey, naclSign } from '../ledger/nacl-verify';
import { canonicalName } from '../ledger/names';
import { signFields, signLedgerLineAfter } from '../ledger/sign';
import { formatLocalInstant } from '../ledger/time';
import { workerLockPid } from '../local/ferry-config';
import { processFacts } from '../local/proc';
import { firstArrivalOf, readReaperState, writeReaperState, type ReaperHold, type ReaperState, type RunSeen } from '../local/reaper-state';

/** What one reap pass needs. */
export interface ReapConfig {
  /** The channel root. */
  readonly root: string;
  /** The local agent whose runs are reaped (any case; compared canonically). */
  readonly agent: string;
  /** The agent's Ed25519 seed, 64 hex digits (its ferry `keys/<agent>.key`). */
  readonly seedHex: string;
  readonly policy: ReapPolicy;
  readonly dryRun: boolean;
  /** The board's stale_after, ms: the TTL, never a guess. */
  readonly staleAfterMs: number;
  /** The reaper's state folder (lib/local/reaper-state.ts). */
  readonly stateDir: string;
  /** The engine ferry starts for the agent (its agent.toml), or null: then the cmdline is not checked. */
  readonly engine: EngineSpec | null;
  /** The agent's workspace `.ferryman` folder, or undefined: where ferry's worker lock is looked for. */
  readonly attachment?: string;
  /** This machine's name, for the release's reason. */
  readonly host: string;
  readonly operators?: readonly string[];
  readonly fleetAgents?: readonly FleetAgent[];
  readonly pins?: ReadonlyMap<string, string>;
  /** This machine's clock, ms (default Date.now). */
  readonly now?: () => number;
  /** A pid's facts (default processFacts). */
  readonly proc?: (pid: number) => ProcessFacts;
  readonly slackMs?: number;
}

/** What happened to one order in a pass. `written` are channel-relative paths. */
export type ReapOutcome =
  | { readonly order_id: string; readonly done: 'released'; readonly why: string; readonly written: readonly string[] }
  | { readonly order_id: string; readonly done: 'held' | 'would_release' | 'would_hold' | 'left'; readonly why: string }
  | { readonly order_id: string; readonly done: 'failed'; readonly why: string; readonly written: readonly string[] };

/** One pass: this machine's clock when it ran, an outcome per order the agent holds (by order id), holds that ended. */
export interface ReapPass {
  readonly nowMs: number;
  readonly outcomes: readonly ReapOutcome[];
  /** Order ids whose hold of an earlier pass no longer stands (released, finished, run again). */
  readonly holdsEnded: readonly string[];
}

/** The whole pass was refused (channel unreadable, agent not in the roster, wrong key); nothing was written. */
export class ReapError extends Error {}

/**
 * Runs one pass (see the header) and returns what it did. Throws ReapError before writing
 * anything when the channel cannot be read or the key is not the agent's key in the roster (its
 * releases would not verify). A write that fails is a `failed` outcome (the others still run).
 */
export function reapOnce(cfg: ReapConfig): ReapPass {
  const agent = canonicalName(cfg.agent);
  const nowMs = (cfg.now ?? Date.now)();
  const proc = cfg.proc ?? processFacts;
  const root = path.resolve(cfg.root);
  let state;
  try {
    state = channelStateOf(root, { nowMs, staleAfterMs: cfg.staleAfterMs, operators: cfg.operators, fleetAgents: cfg.fleetAgents, pins: cfg.pins });
  } catch (e) {
    if (e instanceof ChannelUnreadableError) throw new ReapError(e.message);
    throw e;
  }
  const entry = state.roster.entries.get(agent);
  if (!entry?.public_key) throw new ReapError(`${agent} has no key in the roster of ${root}: its release would not verify`);
  if (entry.public_key !== naclPublicKey(cfg.seedHex)) throw new ReapError(`the key file is not ${agent}'s key in the roster: its release would not verify`);

  const memory = readReaperState(cfg.stateDir, root, agent);
  const lockPid = cfg.attachment ? workerLockPid(cfg.attachment, agent) : null;
  const workerPid = lockPid !== null && proc(lockPid).kind !== 'gone' ? lockPid : null;
  const outcomes: ReapOutcome[] = [];
  const runs: RunSeen[] = [];
  const holds: ReaperHold[] = [];
  for (const card of state.orders) {
    if (card.holder !== agent) continue;
    const view = state.views.get(card.order_id);
    if (!view) continue;
    const dir = path.posix.dirname(view.folder.order.path);
    const ownFile = `${dir}/release.${agent}.json`;
    const own = view.folder.releases.find((r) => r.record.releaser === agent && r.record.released === agent)?.path ?? (fs.existsSync(path.join(root, ownFile)) ? ownFile : null);
    const hb = card.heartbeat;
    if (hb) runs.push({ order_id: card.order_id, run: hb.run, first_arrival_ms: firstArrivalOf(memory.runs, card.order_id, hb.run, hb.arrival_ms) });
    const judge = (h: NonNullable<typeof hb>): Liveness =>
      judgeLiveness({ pid: h.pid, run: h.run, firstArrivalMs: firstArrivalOf(memory.runs, card.order_id, h.run, h.arrival_ms) }, proc(h.pid), cfg.engine, cfg.slackMs ?? START_SLACK_MS);
    const step = reapStep(
      { card, ownRelease: own, released: view.folder.releases.some((r) => r.record.released === agent) },
      agent,
      cfg.policy,
      { nowMs, staleAfterMs: cfg.staleAfterMs },
      judge,
      workerPid,
    );
    const hbPath = view.folder.heartbeats.find((h) => h.record.agent === agent)?.path ?? null;
    outcomes.push(carryOut(step, cfg, { root, agent, nowMs, orderId: view.folder.order.record.id, dir, hbPath, hbArrivalMs: hb?.arrival_ms ?? null, hbRun: hb?.run ?? null }, holds, memory));
  }
  const holdsEnded = memory.holds.filter((h) => !holds.some((k) => k.order_id === h.order_id && k.run === h.run)).map((h) => h.order_id);
  if (!cfg.dryRun && changed(memory, runs, holds)) {
    writeReaperState(cfg.stateDir, { version: 1, channel: root, agent, updated_at_ms: nowMs, runs, holds });
  }
  return { nowMs, outcomes, holdsEnded };
}

const sameRuns = (a: readonly RunSeen[], b: readonly RunSeen[]) => JSON.stringify(a) === JSON.stringify(b);

/** Whether the remembered runs or holds differ from the pass's (the state file is written only then). */
function changed(memory: ReaperState, runs: readonly RunSeen[], holds: readonly ReaperHold[]): boolean {
  return !sameRuns(memory.runs, runs) || JSON.stringify(memory.holds) !== JSON.stringify(holds);
}

interface Target {
  readonly root: string;
  readonly agent: string;
  readonly nowMs: number;
  /** The order's id as its record (and its folder) spells it. */
  readonly orderId: string;
  /** `tasks/<folder>`. */
  readonly dir: string;
  readonly hbPath: string | null;
  readonly hbArrivalMs: number | null;
  readonly hbRun: string | null;
}

/** Does what a step says (or, in a dry run, says what it would do); collects holds into `holds`. */
function carryOut(step: ReapStep, cfg: ReapConfig, t: Target, holds: ReaperHold[], memory: ReaperState): ReapOutcome {
  const id = step.order_id;
  switch (step.action) {
    case 'leave':
      return { order_id: id, done: 'left', why: step.why };
    case 'hold': {
      if (cfg.dryRun) return { order_id: id, done: 'would_hold', why: step.why };
      const hb = step.liveness;
      const run = t.hbRun ?? '';
      const earlier = memory.holds.find((h) => h.order_id === id && h.run === run && h.pid === hb.pid);
      holds.push(
        earlier ?? {
          order_id: id,
          agent: t.agent,
          run,
          pid: hb.pid,
          verdict: hb.verdict === 'reused' ? 'reused' : 'dead',
          text: hb.text,
          held_at_ms: t.nowMs,
          held_at: formatLocalInstant(t.nowMs),
          heartbeat_arrival_ms: t.hbArrivalMs ?? t.nowMs,
        },
      );
      return { order_id: id, done: 'held', why: earlier ? `${step.why} (held since ${earlier.held_at})` : step.why };
    }
    case 'release': {
      if (cfg.dryRun) return { order_id: id, done: 'would_release', why: step.why };
      // The heartbeat judged must still be the one there: a rewrite since means a run goes on.
      if (t.hbPath !== null) {
        let ctime: number | null;
        try {
          ctime = fs.lstatSync(path.join(t.root, t.hbPath)).ctimeMs;
        } catch {
          ctime = null;
        }
        if (ctime !== t.hbArrivalMs) return { order_id: id, done: 'left', why: `${t.hbPath} changed while this pass decided: judged again next pass` };
      }
      return release(step.why, cfg, t);
    }
  }
}

/** Writes the agent's own release, then its ledger line (see the header). */
function release(why: string, cfg: ReapConfig, t: Target): ReapOutcome {
  const sign = (p: string) => naclSign(cfg.seedHex, p);
  const at = formatLocalInstant(t.nowMs); // the agent is local: its clock is this machine's
  const reason = reapReason(cfg.host);
  const record = signFields('release', { order_id: t.orderId, released: t.agent, releaser: t.agent, reason, at }, t.agent, sign);
  const rel = `${t.dir}/release.${t.agent}.json`;
  try {
    writeNewFile(path.join(t.root, rel), new TextEncoder().encode(JSON.stringify(record, null, 2)), t.root);
  } catch (e) {
    return { order_id: t.orderId, done: 'failed', why: `${why}; ${rel} not written: ${e instanceof Error ? e.message : String(e)}`, written: [] };
  }
  const ledgerRel = `ledger.${t.agent}.jsonl`;
  const ledgerAbs = path.join(t.root, ledgerRel);
  try {
    const { prev } = ledgerPrevOf(ledgerAbs);
    const line = signLedgerLineAfter({ kind: 'release', actor: t.agent, summary: releaseSummary(t.agent, t.orderId, reason), reference: t.orderId, created_at: at }, prev, t.agent, sign);
    appendLedgerLine(ledgerAbs, line, prev, t.root);
  } catch (e) {
    // The release stands (nothing is ever taken back); the missing line is said.
    return { order_id: t.orderId, done: 'failed', why: `${why}; ${rel} written, but its ledger line was not: ${e instanceof Error ? e.message : String(e)}`, written: [rel] };
  }
  return { order_id: t.orderId, done: 'released', why, written: [rel, ledgerRel] };
}
