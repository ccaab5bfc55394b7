import 'server-only';
/**
 * The liveness gate on this machine: which agents are local here, and for a card whose
 * holder is one of them, the verdict on its heartbeat's pid (lib/ledger/liveness.ts decides, from
 * the facts lib/local/proc.ts reads). On every other machine a pid means nothing: a card whose
 * holder is not local gets no verdict at all.
 *
 * Local agents come from the operator, who knows which machine this is: `--local-agent <name>`
 * (repeatable), a ferry workspace (`--ferryman-workspace <dir>`: its agent.toml names the agent
 * and the engine ferry starts, so the pid's cmdline can be checked too), or a ferry state
 * directory (`--ferryman-state`, the option `state` and `serve` already read: the identities
 * whose keys are in its `keys/`).
 */
import type { Card } from '../ledger/derive';
import { judgeLiveness, START_SLACK_MS, type EngineSpec, type Liveness, type ProcessFacts } from '../ledger/liveness';
import { canonicalName, isSafeComponent } from '../ledger/names';
import { machineIdentities, readAgentToml } from './ferry-config';
import { processFacts } from './proc';

/** The agents whose heartbeats this machine wrote, with what is known of each. */
export interface LocalAgents {
  /** Canonical name -> the engine ferry starts for it (from agent.toml), or null when not known. */
  readonly engines: ReadonlyMap<string, EngineSpec | null>;
  /** Canonical name -> its workspace's `.ferryman` folder (for ferry's worker lock), when known. */
  readonly attachments: ReadonlyMap<string, string>;
  /** Where each name came from, for the output ("fang: --local-agent"). */
  readonly sources: ReadonlyMap<string, string>;
}

/** Where local agents are named (see the header). */
export interface LocalAgentSources {
  readonly localAgents?: readonly string[];
  readonly workspaces?: readonly string[];
  readonly ferrymanState?: string;
}

/**
 * The local agents named by `src`. Throws Error when a `--local-agent` is not a safe name or a
 * workspace has no valid agent.toml (an operator's mistake is said, not guessed around).
 */
export function localAgentsOf(src: LocalAgentSources): LocalAgents {
  const engines = new Map<string, EngineSpec | null>();
  const attachments = new Map<string, string>();
  const sources = new Map<string, string>();
  for (const ws of src.workspaces ?? []) {
    const t = readAgentToml(ws);
    engines.set(t.agent, t.engine);
    attachments.set(t.agent, t.attachment);
    sources.set(t.agent, t.engine.from);
  }
  for (const raw of src.localAgents ?? []) {
    if (!isSafeComponent(raw.trim())) throw new Error(`--local-agent ${raw}: not a safe name`);
    const name = canonicalName(raw);
    if (!engines.has(name)) engines.set(name, null);
    if (!sources.has(name)) sources.set(name, '--local-agent');
  }
  if (src.ferrymanState) {
    for (const name of machineIdentities(src.ferrymanState)) {
      if (!engines.has(name)) engines.set(name, null);
      if (!sources.has(name)) sources.set(name, `${src.ferrymanState}/keys`);
    }
  }
  return { engines, attachments, sources };
}

/** Options of {@link localLivenessOf}. */
export interface LocalLivenessOptions {
  /** The first arrival of (order, run) remembered here (lib/local/reaper-state.ts), or undefined. */
  readonly firstArrival?: (orderId: string, run: string) => number | undefined;
  /** Reads a pid's facts (default processFacts: this machine's /proc). */
  readonly proc?: (pid: number) => ProcessFacts;
  /** START_SLACK_MS unless set. */
  readonly slackMs?: number;
}

/**
 * Whether the card's holder is meant to be running it now: the order is claimed or stale, or a
 * run ferry's state does not show is going (run_lane). A released claim (offered), a give-up, a
 * finished order, or a revision still owed with no run begun have a last heartbeat whose process
 * has ended by design: its pid being gone is no news, and "dead" would read as an alarm.
 */
export function holderRunExpected(card: Card): boolean {
  return card.state === 'claimed' || card.state === 'stale' || card.run_lane !== undefined;
}

/**
 * The verdict on the holder's heartbeat of `card` when the holder is a local agent whose run is
 * meant to be going (holderRunExpected), else null (no heartbeat, another machine's agent, or no
 * run expected: nothing is said). The run's first arrival is the earlier of the remembered one
 * and the heartbeat file's ctime (card.heartbeat.arrival_ms). For the board: `text` is the
 * card's sentence; staleDetailOf(verdict) the Stale reason's detail.
 */
export function localLivenessOf(card: Card, local: LocalAgents, opts: LocalLivenessOptions = {}): Liveness | null {
  const hb = card.heartbeat;
  if (!card.holder || !hb || !local.engines.has(card.holder) || !holderRunExpected(card)) return null;
  const remembered = opts.firstArrival?.(card.order_id, hb.run);
  const firstArrivalMs = remembered !== undefined ? Math.min(remembered, hb.arrival_ms) : hb.arrival_ms;
  return judgeLiveness({ pid: hb.pid, run: hb.run, firstArrivalMs }, (opts.proc ?? processFacts)(hb.pid), local.engines.get(card.holder) ?? null, opts.slackMs ?? START_SLACK_MS);
}
