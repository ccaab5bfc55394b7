/**
 * Local certainty (ferry's ADR 0011 part 3): on the machine that wrote a heartbeat,
 * whether the run's process is dead, alive, or another process now, and what the reaper does
 * with each of an agent's orders (the two gates: stale on this machine's clock AND the pid
 * confirmed gone here; then the policy).
 *
 * Pure: the process facts are read by lib/local/proc.ts, the heartbeat's arrivals by the folder
 * reader. ONE clock decides everything here, this machine's wall clock: a heartbeat's arrival is
 * its file's ctime here, a process's start time is this machine's boot time plus its ticks since
 * boot. A record's own timestamps (the writer's clock) are never used. A pid means something on
 * the machine that wrote it only: nothing here may be applied to another machine's heartbeats.
 */
import type { Card } from './derive';

/**
 * What this machine's process table says about one pid (lib/local/proc.ts). Times are ms since
 * the epoch on this machine's clock.
 */
export type ProcessFacts =
  /** Cannot be checked here (not Linux, /proc unreadable, not a pid): never read as dead. */
  | { readonly kind: 'unknown'; readonly why: string }
  /** No such process (kill(pid, 0) said ESRCH). */
  | { readonly kind: 'gone' }
  | {
      readonly kind: 'running';
      /**
       * When it started: btime (whole seconds) + starttime ticks / CLK_TCK. Up to 1 s early (btime
       * is truncated) plus one tick; null when it could not be read (`startWhy` says why).
       */
      readonly startMs: number | null;
      readonly startWhy?: string;
      /** Its argv (/proc/<pid>/cmdline); null when unreadable, [] for a zombie or a kernel thread. */
      readonly argv: readonly string[] | null;
      /** Its command name as the kernel keeps it (at most 15 characters), or null. */
      readonly comm: string | null;
      /** /proc/<pid>/stat's state letter (`Z` is a zombie), or null. */
      readonly state: string | null;
      /** Its parent's pid, or null. */
      readonly ppid: number | null;
    };

/** The engine ferry starts for an agent (agent.toml `command`, or podman/docker under `sandbox`): what a run's pid should be. */
export interface EngineSpec {
  /** Basenames the process's argv[0] or argv[1] (an interpreter's script) may have. */
  readonly names: readonly string[];
  /** Where it was read (shown in sentences), e.g. `/srv/ws/.ferryman/agent.toml`. */
  readonly from: string;
}

/** One heartbeat as the liveness check needs it. */
export interface HeartbeatFacts {
  readonly pid: number;
  readonly run: string;
  /** The earliest arrival of this run's heartbeat known here, ms, this machine's clock (see lib/local/liveness.ts). */
  readonly firstArrivalMs: number;
}

/** The four verdicts. `dead` and `reused` mean the run's process is gone; `unknown` is never acted on. */
export type LivenessVerdict = 'dead' | 'alive' | 'reused' | 'unknown';

/** A verdict on one heartbeat, with the sentence a person reads (the card, the reaper's output). */
export interface Liveness {
  readonly verdict: LivenessVerdict;
  readonly pid: number;
  readonly text: string;
  /** The process's start time here (ms), when it was read. */
  readonly startedMs?: number;
  /** The heartbeat's first arrival here (ms) it was compared with. */
  readonly firstArrivalMs: number;
  /** Whether the engine check of agent.toml was made (false: no agent.toml known, or no cmdline to read). */
  readonly engineChecked: boolean;
}

/**
 * How much later than the heartbeat's first arrival a process may seem to have started and still
 * be the run's: 2 s. The computed start is never late for a real process (btime is truncated, so
 * it errs early by up to 1 s); the slack covers this machine's clock being stepped between the
 * process's start and the heartbeat's arrival (btime moves with the clock, ctime does not).
 * A reused pid that started within the slack is read as alive: the safe side.
 */
export const START_SLACK_MS = 2_000;

/** `HH:MM:SS UTC` of an instant (ms): the times in the sentences. */
export function clockTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** Whether a process's argv or comm is one of the engine's names (argv[1] too: `node /usr/bin/claude`, `bash fake-engine`). */
export function matchesEngine(argv: readonly string[], comm: string | null, engine: EngineSpec): boolean {
  const names = new Set(engine.names);
  const firstTwo = argv.slice(0, 2).map(basename);
  if (firstTwo.some((n) => names.has(n))) return true;
  // The kernel's comm is the executable's name cut to 15 characters.
  return comm !== null && engine.names.some((n) => n.slice(0, 15) === comm);
}

/**
 * The verdict on one heartbeat's pid: `dead` when the process is gone, or a zombie whose
 * parent is pid 1 (its worker died before it); `reused` when a process has the pid but started
 * more than `slackMs` (default START_SLACK_MS) after the run's first heartbeat arrived here, so it
 * is not the run's (the run's process is gone); `alive` when it started before (within the slack)
 * and, when `engine` is known and its cmdline readable, it is that engine (its sentence says when
 * its parent is pid 1: an orphan of a dead worker); `unknown` otherwise (cannot check, start time
 * unreadable, a zombie of a living parent, another command than the engine). Every instant is this
 * machine's clock.
 */
export function judgeLiveness(hb: HeartbeatFacts, proc: ProcessFacts, engine: EngineSpec | null, slackMs: number = START_SLACK_MS): Liveness {
  const base = { pid: hb.pid, firstArrivalMs: hb.firstArrivalMs };
  switch (proc.kind) {
    case 'unknown':
      return { ...base, verdict: 'unknown', engineChecked: false, text: `pid ${hb.pid} cannot be checked here: ${proc.why}` };
    case 'gone':
      return { ...base, verdict: 'dead', engineChecked: false, text: `dead: pid ${hb.pid} is gone on this machine` };
    case 'running': {
      if (proc.state === 'Z' && proc.ppid === 1) {
        // Exited, and re-parented to init before that: the worker that started it is gone too. An
        // init that never collects (some containers) would otherwise keep a dead run "running".
        return { ...base, verdict: 'dead', engineChecked: false, text: `dead: pid ${hb.pid} has exited on this machine (a zombie left to pid 1: its worker is gone too)` };
      }
      if (proc.state === 'Z') {
        return {
          ...base,
          verdict: 'unknown',
          engineChecked: false,
          text: `pid ${hb.pid} has exited but its parent${proc.ppid !== null ? ` (pid ${proc.ppid})` : ''} has not collected it yet: its worker may still be there`,
        };
      }
      if (proc.startMs === null) {
        return {
          ...base,
          verdict: 'unknown',
          engineChecked: false,
          text: `pid ${hb.pid} is running here, but its start time cannot be read (${proc.startWhy ?? 'no reason given'}): cannot tell whether it is the run's process`,
        };
      }
      const started = { ...base, startedMs: proc.startMs };
      if (proc.startMs > hb.firstArrivalMs + slackMs) {
        return {
          ...started,
          verdict: 'reused',
          engineChecked: false,
          text: `pid ${hb.pid} is another process now (started ${clockTime(proc.startMs)}, after the run's first heartbeat at ${clockTime(hb.firstArrivalMs)}): the run's process is gone`,
        };
      }
      // Parent 1: its worker died and it was re-parented to init. Still a living run (never reaped);
      // ferry's next start stops it and releases the order (O/agent.rs release_own_dead_runs).
      const alive =
        proc.ppid === 1
          ? `alive: pid ${hb.pid} is running here, but its worker is gone (its parent is now pid 1): an orphan; ferry's next start stops it and releases the order`
          : `alive: pid ${hb.pid} is running here (slow, not orphaned)`;
      if (engine === null || proc.argv === null || proc.argv.length === 0) {
        return { ...started, verdict: 'alive', engineChecked: false, text: alive };
      }
      if (matchesEngine(proc.argv, proc.comm, engine)) {
        return { ...started, verdict: 'alive', engineChecked: true, text: alive };
      }
      const shown = proc.argv.slice(0, 2).join(' ');
      return {
        ...started,
        verdict: 'unknown',
        engineChecked: true,
        text: `pid ${hb.pid} is running here but is \`${shown.length > 80 ? shown.slice(0, 79) + '…' : shown}\`, not ${engine.names.join(' or ')} (${engine.from}): cannot tell whether it is the run's process`,
      };
    }
  }
}

/** Whether a verdict says the run's process is gone here (the reaper's second gate). */
export function runIsGone(v: LivenessVerdict): boolean {
  switch (v) {
    case 'dead':
    case 'reused':
      return true;
    case 'alive':
    case 'unknown':
      return false;
  }
}

/** The Stale reason's local detail for the board: `dead_local`, `alive_local`, or null for unknown. */
export function staleDetailOf(v: LivenessVerdict): 'dead_local' | 'alive_local' | null {
  switch (v) {
    case 'dead':
    case 'reused':
      return 'dead_local';
    case 'alive':
      return 'alive_local';
    case 'unknown':
      return null;
  }
}

// ---- the reaper's plan -------------------------------------------------------------------------

/** `reset`: the agent's own signed release (the fleet re-picks the order); `hold`: nothing written, held for an operator. */
export type ReapPolicy = 'reset' | 'hold';

/** One order whose holder is the reaping agent, with what the plan needs besides the card. */
export interface ReapOrder {
  readonly card: Card;
  /** The agent's own release already in the folder (`tasks/<id>/release.<agent>.json` or any valid release it signed of itself), or null. */
  readonly ownRelease: string | null;
  /** Whether any valid release names the agent as released (its claim no longer counts). */
  readonly released: boolean;
}

/** What the reaper does with one order, and why (the sentence the CLI prints). */
export type ReapStep =
  | { readonly order_id: string; readonly action: 'release'; readonly why: string; readonly liveness: Liveness }
  | { readonly order_id: string; readonly action: 'hold'; readonly why: string; readonly liveness: Liveness }
  | { readonly order_id: string; readonly action: 'leave'; readonly why: string; readonly liveness?: Liveness };

/** Seconds or minutes, for the sentences ("stale after 5 min"). */
export function durationWords(ms: number): string {
  const s = ms / 1000;
  if (s < 120) return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
  const m = s / 60;
  if (m < 120) return `${Math.round(m)} min`;
  return `${(m / 60).toFixed(1)} h`;
}

/**
 * The reaper's decision for one order held by `agent`, gate by gate: the order must be
 * a run of the agent's (claimed or stale, or the run of a changes-requested revision or of an
 * assignee after its own release), with its claim not released and no own release already there;
 * its heartbeat must exist (a pid to check: never on staleness alone) and be stale on this
 * machine's clock (`nowMs − arrival > staleAfterMs`); then `livenessOf` (called
 * only past those gates) must say the run's process is gone (`dead` or `reused`; never `alive` or
 * `unknown`). Then `reset` releases and `hold` holds. `workerPid` is a ferry worker for the agent
 * alive here (its worker lock), which recovers its own runs: then nothing is done.
 */
export function reapStep(
  o: ReapOrder,
  agent: string,
  policy: ReapPolicy,
  clock: { readonly nowMs: number; readonly staleAfterMs: number },
  livenessOf: (heartbeat: NonNullable<Card['heartbeat']>) => Liveness,
  workerPid: number | null = null,
): ReapStep {
  const c = o.card;
  const leave = (why: string, liveness?: Liveness): ReapStep => ({ order_id: c.order_id, action: 'leave', why, ...(liveness ? { liveness } : {}) });
  if (c.holder !== agent) return leave(`held by ${c.holder ?? 'nobody'}, not ${agent}: never another agent's claim`);
  const running = c.state === 'claimed' || c.state === 'stale' || c.run_lane !== undefined;
  if (!running) return leave(`${c.state}: no run of ${agent}'s to reap`);
  if (o.ownRelease !== null) return leave(`${agent}'s own release is already there (${o.ownRelease}): nothing to add`);
  if (o.released) return leave(`${agent}'s claim is already released: nothing to add`);
  const hb = c.heartbeat;
  if (hb === null) return leave(`no heartbeat of ${agent}'s: no pid to check (staleness alone never reaps)`);
  const age = clock.nowMs - hb.arrival_ms;
  if (age <= clock.staleAfterMs) {
    return leave(`heartbeat fresh: arrived here ${durationWords(Math.max(0, age))} ago, stale after ${durationWords(clock.staleAfterMs)}`);
  }
  const stale = `heartbeat arrived here ${durationWords(age)} ago (stale after ${durationWords(clock.staleAfterMs)})`;
  if (workerPid !== null) return leave(`${stale}, but a ferry worker for ${agent} runs here (pid ${workerPid}, its worker lock): left to it`);
  const l = livenessOf(hb);
  switch (l.verdict) {
    case 'alive':
      return leave(`${stale}; ${l.text}`, l);
    case 'unknown':
      return leave(`${stale}; ${l.text}: never reaped without certainty`, l);
    case 'dead':
    case 'reused':
      switch (policy) {
        case 'reset':
          return { order_id: c.order_id, action: 'release', why: `${stale}; ${l.text}`, liveness: l };
        case 'hold':
          return { order_id: c.order_id, action: 'hold', why: `${stale}; ${l.text}: dead run held for review`, liveness: l };
      }
  }
}

/** The release reason the reaper signs (ferry's own dead-run reason, O/agent.rs, and who reaped it where). */
export function reapReason(host: string): string {
  return `worker died mid-run; reaped by claimboard on ${host}`;
}

/** ferry's ledger summary for a release (C/lib.rs `release_claim`): `released <a>'s claim on <order> (<reason>)`. */
export function releaseSummary(released: string, orderId: string, reason: string): string {
  return `released ${released}'s claim on ${orderId} (${reason})`;
}

/**
 * Whether a hold (lib/local/reaper-state.ts) still stands against an order's current card: the
 * same agent holds it, in a run, with the same run id and pid in its heartbeat. Once the order is
 * released, finished or run again, the hold is over. For the board's "dead run held for review".
 */
export function holdApplies(hold: { readonly order_id: string; readonly agent: string; readonly run: string; readonly pid: number }, card: Card): boolean {
  const inRun = card.state === 'claimed' || card.state === 'stale' || card.run_lane !== undefined;
  return card.order_id === hold.order_id && card.holder === hold.agent && inRun && card.heartbeat?.run === hold.run && card.heartbeat.pid === hold.pid;
}
