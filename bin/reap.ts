/**
 * `claimboard reap`: on the machine that runs `--agent`, release
 * (`--policy reset`) or hold for review (`--policy hold`, the default) that agent's runs whose
 * heartbeat is stale on this machine's clock AND whose pid is gone here. Registered by
 * bin/cli.ts; the work is lib/reaper/reap.ts, loaded only when the command runs.
 * Exit codes: 0 the pass(es) ran; 1 refused (channel unreadable, wrong key, a write failed); 2 bad usage.
 */
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import type { ReapOutcome, ReapPass } from '../lib/reaper/reap';
import { durationWords } from '../lib/ledger/liveness';

/** What `reap` takes from the rest of the CLI: the settings it shares with `state` and `serve`. */
export interface ReapEnv {
  /** CLAIMBOARD_OPERATORS. */
  readonly operators: () => readonly string[];
  /** CLAIMBOARD_STALE_AFTER_MS (the board's stale_after, ms; 300 000 when unset). */
  readonly staleAfterMs: () => number;
}

interface ReapOpts {
  readonly agent: string;
  readonly key: string;
  readonly policy: 'reset' | 'hold';
  readonly every?: number;
  readonly dryRun?: boolean;
  readonly staleAfter?: number;
  readonly state?: string;
  readonly ferrymanWorkspace?: string;
  readonly ferrymanState?: string;
  readonly ferrymanPins?: string;
}

function seconds(v: string): number {
  if (!/^\d+(\.\d+)?$/.test(v.trim())) throw new InvalidArgumentError('a number of seconds, e.g. 60 or 2.5');
  const s = Number(v);
  if (!(s > 0)) throw new InvalidArgumentError('must be more than 0');
  return s;
}

const VERB: Record<ReapOutcome['done'], string> = {
  released: 'released',
  held: 'held',
  would_release: 'would release',
  would_hold: 'would hold',
  left: 'left',
  failed: 'FAILED',
};

/** The lines a pass prints: one per order the agent holds (`<order>  <what>: <why>[ -> paths]`), then ended holds. */
export function passLines(pass: ReapPass): string[] {
  const lines = pass.outcomes.map((o) => `${o.order_id}  ${VERB[o.done]}: ${o.why}${'written' in o && o.written.length > 0 ? ` -> ${o.written.join(', ')}` : ''}`);
  for (const id of pass.holdsEnded) lines.push(`${id}  hold ended: the order is no longer that dead run's`);
  return lines;
}

/** Adds `claimboard reap` to `program`; `setCode` receives the exit code. */
export function addReapCommand(program: Command, setCode: (code: number) => void, env: ReapEnv): void {
  program
    .command('reap')
    .description("release (reset) or hold (hold) this machine's agent's runs whose heartbeat is stale here AND whose pid is gone here (docs/reaper.md)")
    .argument('<channel>', 'the channel root')
    .requiredOption('--agent <name>', 'the local agent whose dead runs are reaped (never another agent\'s)')
    .requiredOption('--key <seed-file>', "that agent's Ed25519 seed file (ferry's keys/<agent>.key)")
    .option('--policy <policy>', 'reset: write the agent\'s own signed release (the fleet re-picks the order); hold: write nothing into the channel, hold the run for review', (v: string) => {
      if (v !== 'reset' && v !== 'hold') throw new InvalidArgumentError('reset or hold');
      return v;
    }, 'hold')
    .option('--every <seconds>', 'run a pass every so many seconds until SIGINT or SIGTERM', seconds)
    .option('--dry-run', 'write nothing anywhere; print what each order would get, and why')
    .option('--stale-after <seconds>', "the board's stale_after (default CLAIMBOARD_STALE_AFTER_MS, else 300: ferry's 30 s x 10)", seconds)
    .option('--state <dir>', 'where the reaper keeps its holds and the first arrival of each run (default $XDG_STATE_HOME/claimboard, else ~/.local/state/claimboard)')
    .option('--ferryman-workspace <dir>', "the agent's ferry workspace: its .ferryman/agent.toml names the engine to check the pid against, and the worker lock")
    .option('--ferryman-state <dir>', "also trust this machine's ferry fleet roster (<dir>/fleet/agents; default $FERRYMAN_STATE_DIR)")
    .option('--ferryman-pins <dir>', "keys ferry pinned on this machine (<workspace>/.ferryman/agents-pinned)")
    .action(async (channel: string, opts: ReapOpts) => {
      setCode(await runReap(channel, opts, env));
    });
}

async function runReap(channel: string, opts: ReapOpts, env: ReapEnv): Promise<number> {
  const say = (s: string) => process.stderr.write(`claimboard: ${s}\n`);
  const [{ reapOnce, ReapError }, { readSeed, ActionCliError }, { readAgentToml }, { defaultStateDir }, { readFerryPins, readFleetRoster }, { canonicalName, isSafeComponent }] = await Promise.all([
    import('../lib/reaper/reap'),
    import('./actions'),
    import('../lib/local/ferry-config'),
    import('../lib/local/reaper-state'),
    import('../lib/index/ferryman-state'),
    import('../lib/ledger/names'),
  ]);
  if (!isSafeComponent(opts.agent.trim())) {
    say(`--agent ${opts.agent}: not a safe name`);
    return 2;
  }
  const agent = canonicalName(opts.agent);
  let seedHex: string;
  let toml = null;
  try {
    seedHex = readSeed(opts.key);
    if (opts.ferrymanWorkspace) toml = readAgentToml(opts.ferrymanWorkspace);
  } catch (e) {
    say(e instanceof ActionCliError || e instanceof Error ? e.message : String(e));
    return e instanceof ActionCliError ? 1 : 2;
  }
  if (toml && toml.agent !== agent) {
    say(`${toml.engine.from} is ${toml.agent}'s, not ${agent}'s`);
    return 2;
  }
  const stateDir = path.resolve(opts.state ?? defaultStateDir());
  const ferryState = opts.ferrymanState ?? process.env.FERRYMAN_STATE_DIR;
  const staleAfterMs = opts.staleAfter !== undefined ? opts.staleAfter * 1000 : env.staleAfterMs();
  const config = {
    root: channel,
    agent,
    seedHex,
    policy: opts.policy,
    dryRun: opts.dryRun === true,
    staleAfterMs,
    stateDir,
    engine: toml?.engine ?? null,
    ...(toml ? { attachment: toml.attachment } : {}),
    host: os.hostname(),
    operators: env.operators(),
    ...(ferryState ? { fleetAgents: readFleetRoster(ferryState) } : {}),
    ...(opts.ferrymanPins ? { pins: readFerryPins(opts.ferrymanPins) } : {}),
  };
  say(
    `reap ${agent} on ${path.resolve(channel)}: policy ${opts.policy}${config.dryRun ? ' (dry run: nothing is written)' : ''}, stale after ${durationWords(staleAfterMs)} on this machine's clock, ` +
      `${toml ? `pids checked against ${toml.engine.names.join(' or ')} (${toml.engine.from})` : 'pids checked for existence and start time (no agent.toml: the command is not checked)'}, state in ${stateDir}`,
  );

  /** One pass: 'ok', 'failed' (a write failed; the rest ran) or 'refused' (nothing was done). */
  const pass = (): 'ok' | 'failed' | 'refused' => {
    let p: ReapPass;
    try {
      p = reapOnce(config);
    } catch (e) {
      if (e instanceof ReapError) {
        say(e.message);
        return 'refused';
      }
      throw e;
    }
    for (const line of passLines(p)) process.stdout.write(line + '\n');
    const count = (d: ReapOutcome['done']) => p.outcomes.filter((o) => o.done === d).length;
    const parts = (['released', 'held', 'would_release', 'would_hold', 'left', 'failed'] as const).filter((d) => count(d) > 0).map((d) => `${count(d)} ${VERB[d]}`);
    say(`${new Date(p.nowMs).toISOString()}: ${parts.length > 0 ? parts.join(', ') : `${agent} holds no order here`}`);
    return count('failed') > 0 ? 'failed' : 'ok';
  };

  const first = pass();
  if (opts.every === undefined) return first === 'ok' ? 0 : 1;
  // A first pass refused is a setup to fix (a wrong key, no such channel): said at once. Later
  // refusals (the folder away for a moment) and failed writes are said and tried again.
  if (first === 'refused') return 1;
  const every = opts.every;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((r) => (stop = r));
  const onSignal = () => stop();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const tick = new Promise<'tick'>((r) => (timer = setTimeout(() => r('tick'), every * 1000)));
      const why = await Promise.race([tick, stopped.then(() => 'stop' as const)]);
      clearTimeout(timer);
      if (why === 'stop') break;
      pass();
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  say('stopped');
  return 0;
}
