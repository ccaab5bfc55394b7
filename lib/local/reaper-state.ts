import 'server-only';
/**
 * The reaper's own state on this machine, never in the channel: one JSON file per
 * channel and agent, `<stateDir>/reaper/<channel key>.<agent>.json`, written only by the reaper
 * for that agent (one writer per path) through a dot temp file, fsync and rename. It holds
 * - `runs`: the first arrival here of each run's heartbeat the reaper has seen (a heartbeat file
 *   is rewritten every 30 s, so its ctime is its LAST arrival; a pid's process must have started
 *   before the FIRST, and only a reaper that looked earlier knows that one);
 * - `holds`: the dead runs held for review under `--policy hold`, for the board to raise
 *   ("dead run held for review"); a hold stands while the order is still that run's, which
 *   holdApplies (lib/ledger/liveness.ts) decides against the current card.
 * Instants are ms since the epoch on this machine's clock. The file is parsed with zod; a file
 * that does not parse is treated as empty (and replaced at the next write), never trusted.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { canonicalName } from '../ledger/names';

/** Where the reaper keeps its state by default: `$XDG_STATE_HOME/claimboard`, else `~/.local/state/claimboard`. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME?.trim();
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.local', 'state'), 'claimboard');
}

/** The 16 hex digits naming a channel's files: SHA-256 of its resolved path (as the index's default file name). */
export function channelKey(channel: string): string {
  return createHash('sha256').update(path.resolve(channel)).digest('hex').slice(0, 16);
}

/** The state file of `agent` on `channel` under `stateDir`. */
export function stateFileOf(stateDir: string, channel: string, agent: string): string {
  return path.join(path.resolve(stateDir), 'reaper', `${channelKey(channel)}.${canonicalName(agent)}.json`);
}

const RunSeen = z.object({ order_id: z.string(), run: z.string(), first_arrival_ms: z.number() });
const Hold = z.object({
  order_id: z.string(),
  agent: z.string(),
  run: z.string(),
  pid: z.number().int(),
  verdict: z.enum(['dead', 'reused']),
  /** The verdict's sentence ("dead: pid 12345 is gone on this machine"). */
  text: z.string(),
  /** When the reaper first held it, ms and RFC 3339, this machine's clock. */
  held_at_ms: z.number(),
  held_at: z.string(),
  /** The heartbeat's arrival here when it was held (ms). */
  heartbeat_arrival_ms: z.number(),
});
const StateFile = z.object({
  version: z.literal(1),
  channel: z.string(),
  agent: z.string(),
  updated_at_ms: z.number(),
  runs: z.array(RunSeen),
  holds: z.array(Hold),
});

/** A run's first heartbeat arrival seen here. */
export type RunSeen = z.infer<typeof RunSeen>;
/** A dead run held for review (policy `hold`). */
export type ReaperHold = z.infer<typeof Hold>;
/** The reaper's state for one channel and agent. */
export type ReaperState = z.infer<typeof StateFile>;

/** The state of `agent` on `channel` (empty when the file is missing or does not parse). Never throws. */
export function readReaperState(stateDir: string, channel: string, agent: string): ReaperState {
  const empty: ReaperState = { version: 1, channel: path.resolve(channel), agent: canonicalName(agent), updated_at_ms: 0, runs: [], holds: [] };
  try {
    const r = StateFile.safeParse(JSON.parse(fs.readFileSync(stateFileOf(stateDir, channel, agent), 'utf8')));
    return r.success ? r.data : empty;
  } catch {
    return empty;
  }
}

/**
 * Every agent's holds on `channel` under `stateDir` (what the board raises; check each with
 * holdApplies against the current card). Files that do not parse are passed over. Never throws.
 */
export function readHolds(stateDir: string, channel: string): ReaperHold[] {
  const dir = path.join(path.resolve(stateDir), 'reaper');
  const prefix = `${channelKey(channel)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.startsWith(prefix) && n.endsWith('.json')).sort();
  } catch {
    return [];
  }
  const out: ReaperHold[] = [];
  for (const n of names) {
    try {
      const r = StateFile.safeParse(JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')));
      if (r.success) out.push(...r.data.holds);
    } catch {
      /* unreadable: passed over */
    }
  }
  return out;
}

/** Writes the state atomically (dot temp file, fsync, rename; folders made as needed). Throws Error when the disk refuses. */
export function writeReaperState(stateDir: string, state: ReaperState): void {
  const file = stateFileOf(stateDir, state.channel, state.agent);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  try {
    fs.writeSync(fd, JSON.stringify(StateFile.parse(state), null, 2) + '\n');
    fs.fsyncSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * The first arrival of a run's heartbeat known here: the earlier of what `runs` remembers for
 * (order, run) and `currentArrivalMs` (the heartbeat file's ctime now). Pure.
 */
export function firstArrivalOf(runs: readonly RunSeen[], orderId: string, run: string, currentArrivalMs: number): number {
  const seen = runs.find((r) => r.order_id === orderId && r.run === run);
  return seen ? Math.min(seen.first_arrival_ms, currentArrivalMs) : currentArrivalMs;
}
