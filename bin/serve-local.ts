/**
 * `serve`'s local options: which agents are local to this
 * machine (`--local-agent`, `--ferryman-workspace`, both repeatable; `--ferryman-state`'s keys
 * too), passed to the web server so the board shows the liveness verdicts; and the opt-in reaper
 * (`--reap <agent>:<policy>:<key-file>`, repeatable, or `--reap-agent --reap-key [--reap-policy]`;
 * `--reap-every`, `--reap-state`), one pass of lib/reaper/reap.ts per reaped agent on a timer inside
 * serve, each written path nudged to the indexer.
 */
import os from 'node:os';
import path from 'node:path';
import type { FleetAgent } from '../lib/index/ferryman-state';
import { canonicalName, isSafeComponent } from '../lib/ledger/names';
import { durationWords } from '../lib/ledger/liveness';
import { localAgentsOf, type LocalAgents } from '../lib/local/liveness';
import { reapOnce, ReapError, type ReapConfig } from '../lib/reaper/reap';
import { defaultStateDir } from '../lib/local/reaper-state';
import { readSeed } from './actions';
import { passLines } from './reap';
import type { ServeLocal } from './serve-local-options';

/** What serve starts with: the web server's environment, the reaper's config (or null) and lines to print. */
export interface PreparedLocal {
  readonly env: Readonly<Record<string, string>>;
  /** The reaper's state folder, absolute: its holds are folded into the index (lib/index/writer/local-holds.ts). */
  readonly stateDir: string;
  /** One reaper per reaped agent, each with its own policy (empty: none). */
  readonly reaps: readonly { readonly config: ReapConfig; readonly everyMs: number }[];
  readonly lines: readonly string[];
  /** The local agents: their runs' pids are checked here (the board and the index). */
  readonly agents: LocalAgents;
}

/**
 * Checks the local options and prepares them. Throws Error (serve exits 2) on a bad name, a
 * workspace without a valid agent.toml, a reaped agent that is not local, or an unreadable key.
 */
export function prepareLocal(
  local: ServeLocal,
  ctx: { readonly channel: string; readonly staleAfterMs: number; readonly ferrymanState?: string; readonly operators: readonly string[]; readonly fleetAgents: readonly FleetAgent[] },
): PreparedLocal {
  const workspaces = local.ferrymanWorkspaces.map((w) => path.resolve(w));
  const agents = localAgentsOf({ localAgents: local.localAgents, workspaces, ...(ctx.ferrymanState ? { ferrymanState: ctx.ferrymanState } : {}) });
  const stateDir = path.resolve(local.reapState ?? defaultStateDir());
  const env: Record<string, string> = {
    ...(local.localAgents.length > 0 ? { CLAIMBOARD_LOCAL_AGENTS: local.localAgents.join(',') } : {}),
    ...(workspaces.length > 0 ? { CLAIMBOARD_FERRYMAN_WORKSPACES: workspaces.join(':') } : {}),
    CLAIMBOARD_REAPER_STATE: stateDir,
  };
  const lines: string[] = [];
  if (agents.engines.size > 0) lines.push(`local agents (their pids are checked here): ${[...agents.sources].map(([n, from]) => `${n} (${from})`).join(', ')}`);
  const reaps = local.reaps.map((r) => {
    if (!isSafeComponent(r.agent.trim())) throw new Error(`reaped agent ${r.agent}: not a safe name`);
    const agent = canonicalName(r.agent);
    if (!agents.engines.has(agent)) throw new Error(`reaped agent ${agent} is not local here: name it with --local-agent or --ferryman-workspace too`);
    const config: ReapConfig = {
      root: ctx.channel,
      agent,
      seedHex: readSeed(r.key),
      policy: r.policy,
      dryRun: false,
      staleAfterMs: ctx.staleAfterMs,
      stateDir,
      engine: agents.engines.get(agent) ?? null,
      ...(agents.attachments.has(agent) ? { attachment: agents.attachments.get(agent) } : {}),
      host: os.hostname(),
      operators: ctx.operators,
      fleetAgents: ctx.fleetAgents,
    };
    lines.push(`reaping ${agent}'s dead runs every ${durationWords(r.everyS * 1000)} (policy ${r.policy}, stale after ${durationWords(ctx.staleAfterMs)} on this machine's clock, state in ${stateDir})`);
    return { config, everyMs: r.everyS * 1000 };
  });
  return { env, stateDir, reaps, lines, agents };
}

/**
 * Runs a reaper pass now and then every `everyMs` until the returned stop is called. Each path a
 * pass wrote goes to `nudge` (the indexer looks at it at once); its lines go to `log`. A refused
 * pass (the folder away, a wrong key) is logged and tried again at the next tick.
 */
export function startReaper(config: ReapConfig, everyMs: number, nudge: (rel: string) => void, log: (line: string) => void): () => void {
  // Holds said already: a hold stands pass after pass, and is said once (again once it ended and came back).
  let saidHeld = new Set<string>();
  const pass = () => {
    try {
      const p = reapOnce(config);
      for (const o of p.outcomes) if ('written' in o) for (const rel of o.written) nudge(rel);
      // Quiet unless something happened: a left order or a standing hold is said by the board already.
      const news = p.outcomes.filter((o) => o.done !== 'left' && !(o.done === 'held' && saidHeld.has(o.order_id)));
      saidHeld = new Set(p.outcomes.filter((o) => o.done === 'held').map((o) => o.order_id));
      for (const line of passLines({ ...p, outcomes: news })) log(`reap: ${line}`);
    } catch (e) {
      log(`reap: ${e instanceof ReapError || e instanceof Error ? e.message : String(e)}`);
    }
  };
  pass();
  const timer = setInterval(pass, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
