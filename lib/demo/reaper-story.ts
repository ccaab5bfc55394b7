import 'server-only';
/**
 * The demo's reaper story: two workers of the demo
 * machine, `heron` and `lynx`, each with one run whose process really died here, so that `serve`'s
 * reaper shows both policies on them: heron's run is reset (heron's own signed release; the order
 * goes back to Open) and lynx's is held for review (Needs attention, "dead run held for review").
 *
 * Written once per demo channel, at serve's start (the story's orders already there: nothing is
 * written): roster entries and seeds (outside the channel, like the other demo keys), an order for
 * each issued by the operator, the worker's claim and ledger line, and a heartbeat naming the pid
 * of a child process (`sleep`) started before it and killed (SIGKILL, collected) right after, so
 * the pid is gone on this machine. The orders go into the manifest's `abandoned`: the simulated
 * fleet never claims them, and its own stories are left as they were. The runs turn stale once
 * `stale_after` (30 s in the demo) has passed on this machine's clock since the heartbeat arrived;
 * the reaper's next pass then acts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ReapPolicy } from '../ledger/liveness';
import { claimOrder } from './ferry';
import { demoKeysDir, loadDemoIdentity } from './cast';
import { readDemoManifest, writeDemoManifest } from './manifest';
import { generateSeed, publicKeyOf, readKeyFile, writeKeyFile, type Identity } from './identity';
import { writeAgent, writeHeartbeat, writeOrder } from './write';

/** The story's workers, the order each runs and the policy the demo's reaper applies to it. */
export const REAPER_STORY: readonly { readonly agent: string; readonly order: string; readonly policy: ReapPolicy; readonly task: string }[] = [
  { agent: 'heron', order: 'reindex-search-212', policy: 'reset', task: 'Rebuild the search index for the 2.3 catalogue' },
  { agent: 'lynx', order: 'migrate-billing-88', policy: 'hold', task: 'Run the billing ledger migration (irreversible: a person decides a retry)' },
];

/** One story worker as serve's reaper takes it. */
export interface StoryReap {
  readonly agent: string;
  /** The worker's seed file (outside the channel). */
  readonly key: string;
  readonly policy: ReapPolicy;
}

/** What the story left: the reapers to start, and whether this call wrote the runs. */
export interface ReaperStory {
  readonly reaps: readonly StoryReap[];
  readonly written: boolean;
}

/** The seed of `name` in `keysDir`, made (0600) when missing. */
function identity(keysDir: string, name: string): Identity {
  const file = path.join(keysDir, `${name}.key`);
  let seedHex: string;
  try {
    seedHex = readKeyFile(file);
  } catch {
    seedHex = generateSeed();
    writeKeyFile(file, seedHex);
  }
  return { name, seedHex, clockOffsetMs: 0 };
}

/** A child process (`sleep`) of this machine, started; null when none can start here (no `sleep`). */
async function startProcess(): Promise<ChildProcess | null> {
  const c = spawn('sleep', ['86400'], { stdio: 'ignore' });
  const started = await new Promise<boolean>((resolve) => {
    c.once('spawn', () => resolve(true));
    c.once('error', () => resolve(false));
  });
  return started && c.pid !== undefined ? c : null;
}

/** Kills `c` and waits until it is collected (before that its pid is a zombie, not gone). */
async function killProcess(c: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
  c.kill('SIGKILL');
  await exited;
}

/** A pid no Linux machine has (above pid_max's ceiling, 2^22): the fallback when no process can start. */
const NO_SUCH_PID = 4_194_305;

/**
 * Writes the story into the demo channel at `dir` unless its orders are there (see the header).
 * A run's heartbeat is written after its process started and before it is killed, as a real
 * engine's would be. Throws Error when the demo's manifest or operator key cannot be read.
 */
export async function ensureReaperStory(dir: string): Promise<ReaperStory> {
  const keysDir = demoKeysDir(dir);
  const manifest = readDemoManifest(dir);
  const reaps = REAPER_STORY.map((s) => ({ agent: s.agent, key: path.join(keysDir, `${s.agent}.key`), policy: s.policy }));
  const pending = REAPER_STORY.filter((s) => !fs.existsSync(path.join(dir, 'tasks', s.order, 'order.json')));
  if (pending.length === 0) return { reaps, written: false };
  const ops = loadDemoIdentity(keysDir, manifest.operator, manifest.clock_offsets_ms);
  for (const s of pending) {
    const agent = identity(keysDir, s.agent);
    if (!fs.existsSync(path.join(dir, 'agents', `${s.agent}.json`))) writeAgent(dir, { name: s.agent, role: 'worker', capabilities: [], publicKey: publicKeyOf(agent) });
    writeOrder(dir, ops, { id: s.order, project_id: 'atlas', payload: { task: s.task } });
    claimOrder(dir, agent, s.order);
    const proc = await startProcess();
    writeHeartbeat(dir, agent, s.order, { run: randomBytes(16).toString('hex'), pid: proc?.pid ?? NO_SUCH_PID });
    if (proc) await killProcess(proc);
  }
  const abandoned = new Set(manifest.abandoned);
  for (const s of REAPER_STORY) abandoned.add(`${s.order}/${s.agent}`);
  writeDemoManifest(dir, { ...readDemoManifest(dir), abandoned: [...abandoned] });
  return { reaps, written: true };
}
