/**
 * `serve`'s local options as the CLI parses them (issue 16): `--local-agent`, `--ferryman-workspace`
 * (repeatable) and the opt-in reaper's `--reap-*`. Only commander here, so the CLI starts fast;
 * bin/serve-local.ts checks and starts them.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { ReapPolicy } from '../lib/ledger/liveness';

/** The reaper inside serve: off unless `reap` is given. */
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
  readonly reap?: ServeReap;
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
  readonly reapAgent?: string;
  readonly reapKey?: string;
  readonly reapPolicy?: ReapPolicy;
  readonly reapEvery?: number;
  readonly reapState?: string;
}

/** The options as {@link ServeLocal}. Throws InvalidArgumentError when --reap-agent and --reap-key do not come together, or a --reap-* is given without them. */
export function serveLocalOf(f: ServeLocalFlags): ServeLocal {
  if ((f.reapAgent === undefined) !== (f.reapKey === undefined)) throw new InvalidArgumentError('--reap-agent and --reap-key go together');
  if (f.reapAgent === undefined && (f.reapPolicy !== undefined || f.reapEvery !== undefined)) throw new InvalidArgumentError('--reap-policy and --reap-every need --reap-agent and --reap-key');
  return {
    localAgents: f.localAgent ?? [],
    ferrymanWorkspaces: f.ferrymanWorkspace ?? [],
    ...(f.reapState ? { reapState: f.reapState } : {}),
    ...(f.reapAgent !== undefined && f.reapKey !== undefined
      ? { reap: { agent: f.reapAgent, key: f.reapKey, policy: f.reapPolicy ?? 'hold', everyS: f.reapEvery ?? DEFAULT_REAP_EVERY_S } }
      : {}),
  };
}

