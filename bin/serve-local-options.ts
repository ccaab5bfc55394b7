/**
 * `serve`'s local options as the CLI parses them: `--local-agent`, `--ferryman-workspace`
 * (repeatable) and the opt-in reaper: `--reap <agent>:<policy>:<key-file>` (repeatable, one policy
 * per agent) and the older single-agent `--reap-agent --reap-key [--reap-policy]`, with
 * `--reap-every` and `--reap-state` for all. Only commander here, so the CLI starts fast;
 * bin/serve-local.ts checks and starts them.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { ReapPolicy } from '../lib/ledger/liveness';

/** One reaped agent inside serve. */
export interface ServeReap {
  readonly agent: string;
  /** The agent's seed file. */
  readonly key: string;
  readonly policy: ReapPolicy;
  /** Seconds between passes (default 60). */
  readonly everyS: number;
}

/** What `serve` takes for this machine (see the header). */
export interface ServeLocal {
  readonly localAgents: readonly string[];
  readonly ferrymanWorkspaces: readonly string[];
  /** The reaper's state folder (default $XDG_STATE_HOME/claimboard, else ~/.local/state/claimboard). */
  readonly reapState?: string;
  /** The agents reaped, each with its own policy (empty: no reaper). */
  readonly reaps: readonly ServeReap[];
}

const DEFAULT_REAP_EVERY_S = 60;

function positiveSeconds(v: string): number {
  if (!/^\d+(\.\d+)?$/.test(v.trim()) || !(Number(v) > 0)) throw new InvalidArgumentError('a number of seconds above 0, e.g. 60 or 2.5');
  return Number(v);
}

/** Adds the local options to `serve`'s command. */
export function addServeLocalOptions(cmd: Command): Command {
  const more = (v: string, prev: string[]) => [...prev, v];
  return cmd
    .option('--local-agent <name>', 'an agent whose worker runs on this machine: its heartbeats\' pids are checked here (repeatable; docs/reaper.md)', more, [] as string[])
    .option('--ferryman-workspace <dir>', "a local agent's ferry workspace (its .ferryman/agent.toml names the agent and the engine; repeatable)", more, [] as string[])
    .option('--reap <agent:policy:key-file>', "reap this local agent's dead runs on a timer with this policy (reset|hold) and its seed file, e.g. fang:reset:keys/fang.key (repeatable; docs/reaper.md)", more, [] as string[])
    .option('--reap-agent <name>', "reap this local agent's dead runs on a timer (off unless given; with --reap-key)")
    .option('--reap-key <seed-file>', "the reaped agent's Ed25519 seed file (ferry's keys/<agent>.key)")
    .option('--reap-policy <policy>', 'reset: the agent\'s own signed release; hold: held for review, nothing written (default hold)', (v: string) => {
      if (v !== 'reset' && v !== 'hold') throw new InvalidArgumentError('reset or hold');
      return v;
    })
    .option('--reap-every <seconds>', `seconds between reaper passes (default ${DEFAULT_REAP_EVERY_S})`, positiveSeconds)
    .option('--reap-state <dir>', "the reaper's state folder (its holds; default $XDG_STATE_HOME/claimboard, else ~/.local/state/claimboard)");
}

/** The commander options {@link addServeLocalOptions} adds. */
export interface ServeLocalFlags {
  readonly localAgent?: string[];
  readonly ferrymanWorkspace?: string[];
  readonly reap?: string[];
  readonly reapAgent?: string;
  readonly reapKey?: string;
  readonly reapPolicy?: ReapPolicy;
  readonly reapEvery?: number;
  readonly reapState?: string;
}

/** One `--reap <agent>:<policy>:<key-file>` (the key file may hold colons). Throws InvalidArgumentError on another shape. */
export function reapSpecOf(v: string, everyS: number): ServeReap {
  const m = /^([^:]+):([^:]+):(.+)$/.exec(v.trim());
  if (!m?.[1] || !m[2] || !m[3]) throw new InvalidArgumentError(`--reap ${v}: expected <agent>:<policy>:<key-file>, e.g. fang:reset:keys/fang.key`);
  const policy = m[2];
  if (policy !== 'reset' && policy !== 'hold') throw new InvalidArgumentError(`--reap ${v}: the policy is reset or hold, not ${policy}`);
  return { agent: m[1], key: m[3], policy, everyS };
}

/**
 * The options as {@link ServeLocal}: every `--reap`, then `--reap-agent` with `--reap-key`. Throws
 * InvalidArgumentError when --reap-agent and --reap-key do not come together, --reap-policy is
 * given without them, --reap-every without any reaped agent, a --reap does not read, or an agent
 * is reaped twice.
 */
export function serveLocalOf(f: ServeLocalFlags): ServeLocal {
  if ((f.reapAgent === undefined) !== (f.reapKey === undefined)) throw new InvalidArgumentError('--reap-agent and --reap-key go together');
  if (f.reapAgent === undefined && f.reapPolicy !== undefined) throw new InvalidArgumentError('--reap-policy needs --reap-agent and --reap-key');
  const everyS = f.reapEvery ?? DEFAULT_REAP_EVERY_S;
  const reaps = (f.reap ?? []).map((v) => reapSpecOf(v, everyS));
  if (f.reapAgent !== undefined && f.reapKey !== undefined) reaps.push({ agent: f.reapAgent, key: f.reapKey, policy: f.reapPolicy ?? 'hold', everyS });
  if (reaps.length === 0 && f.reapEvery !== undefined) throw new InvalidArgumentError('--reap-every needs --reap, or --reap-agent and --reap-key');
  const seen = new Set<string>();
  for (const r of reaps) {
    const k = r.agent.trim().toLowerCase();
    if (seen.has(k)) throw new InvalidArgumentError(`${r.agent} is reaped twice: one policy per agent`);
    seen.add(k);
  }
  return {
    localAgents: f.localAgent ?? [],
    ferrymanWorkspaces: f.ferrymanWorkspace ?? [],
    ...(f.reapState ? { reapState: f.reapState } : {}),
    reaps,
  };
}
