/**
 * The reaper against the real ferry worker: a hub issues an order, fang's real worker
 * (`ferry agent run --once`, engine `fake-engine`, the kit CLAIMBOARD_FERRY_KIT names) claims it and writes its
 * heartbeat with the engine's pid; while the worker runs the reaper leaves it, then worker and
 * engine are killed with SIGKILL (a crashed service) and `reset` releases the run. ferry reads the
 * order Open, and fang's next worker start adds nothing (its own recovery finds nothing to do).
 * Without the real ferry (CLAIMBOARD_FERRY_KIT) this file says so and runs nothing.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { channelStateOf } from '../index/channel-state';
import { readAgentToml } from '../local/ferry-config';
import { processFacts } from '../local/proc';
import { reapOnce, type ReapConfig } from './reap';
import { FERRY_KIT } from '../../test/support/ferry-kit';
import { until } from '../../test/support/until';

const KIT = FERRY_KIT ?? '(CLAIMBOARD_FERRY_KIT unset)';
const FERRY = path.join(KIT, 'bin', 'ferry');
const ORACLE = path.join(KIT, 'bin', 'ferry-oracle');
const have = process.platform === 'linux' && [FERRY, ORACLE, path.join(KIT, 'bin', 'fake-engine'), path.join(KIT, 'ferry-tasks.sh')].every((f) => fs.existsSync(f));
if (!have) console.warn(`reap-ferry.test: skipped: no real ferry (CLAIMBOARD_FERRY_KIT: ${KIT}), or this is not Linux`);

const R = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-reap-ferry-'));
const CH = path.join(R, 'ch');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  fs.rmSync(R, { recursive: true, force: true });
});
const ws = (m: string) => path.join(R, 'm', m, 'demo');
const env = (m: string) => ({ NODE_ENV: 'test' as const, PATH: `${KIT}/bin:/usr/bin:/bin`, HOME: path.join(R, 'm', m, 'home'), FERRYMAN_STATE_DIR: path.join(R, 'm', m, 'state'), TMPDIR: path.join(R, 'tmp') });
const ferry = (m: string, args: string[]) => execFileSync(FERRY, args, { env: env(m), cwd: ws(m), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A machine joins the project as `ferry enable` does, its synced folder a symlink to CH (Syncthing's stand-in). */
function join(m: string, role: string): void {
  fs.mkdirSync(path.join(ws(m), '.ferryman'), { recursive: true });
  fs.mkdirSync(env(m).HOME, { recursive: true });
  fs.mkdirSync(env(m).FERRYMAN_STATE_DIR, { recursive: true });
  fs.symlinkSync(CH, path.join(ws(m), '.ferryman', 'ferryman'));
  ferry(m, ['enable', '--workspace', ws(m), '--project', 'demo', '--agent', m, '--role', role, '--email', 'ops@example.invalid', '--command', 'fake-engine', '--review', 'off', '--no-syncthing']);
}

describe.runIf(have)("the reaper and ferry's own worker", () => {
  it('leaves a running worker, releases its run once worker and engine are killed; ferry reads it Open and its next start adds nothing', async () => {
    fs.mkdirSync(CH, { recursive: true });
    fs.mkdirSync(path.join(R, 'tmp'));
    join('hub', 'orchestrator');
    join('fang', 'worker');
    ferry('hub', ['channel', 'order', '--workspace', ws('hub'), '--agent', 'hub', '--id', 'r-1', '--task', 'Profile the sync loop [sleep-on-fang:600]']);
    const worker = spawn(FERRY, ['agent', 'run', '--workspace', ws('fang'), '--once'], { env: env('fang'), cwd: ws('fang'), stdio: 'ignore' });
    children.push(worker);
    const hbFile = path.join(CH, 'tasks', 'r-1', 'heartbeat.fang.json');
    await until(() => fs.existsSync(hbFile), 120_000);
    const pid = (JSON.parse(fs.readFileSync(hbFile, 'utf8')) as { pid: number }).pid;
    // ferry records the engine's pid: bash running fake-engine, a child of the worker.
    const facts = processFacts(pid);
    if (facts.kind !== 'running') throw new Error(JSON.stringify(facts));
    expect([facts.argv?.[1] ? path.basename(facts.argv[1]) : null, facts.ppid]).toEqual(['fake-engine', worker.pid]);

    const toml = readAgentToml(ws('fang'));
    const seedHex = fs.readFileSync(path.join(ws('fang'), '.ferryman', 'keys', 'fang.key'), 'utf8').trim();
    const cfg = (more: Partial<ReapConfig> = {}): ReapConfig => ({
      root: CH,
      agent: 'fang',
      seedHex,
      policy: 'reset',
      dryRun: false,
      staleAfterMs: 300, // ferry rewrites its heartbeat every 30 s: stale here after 0.3 s
      stateDir: path.join(R, 'reaper'),
      engine: toml.engine,
      attachment: toml.attachment,
      host: 'test-host',
      ...more,
    });
    await sleep(500);
    expect(reapOnce(cfg()).outcomes[0]?.why).toContain(`but a ferry worker for fang runs here (pid ${worker.pid}, its worker lock): left to it`);
    expect(reapOnce(cfg({ attachment: undefined })).outcomes[0]?.why).toContain(`alive: pid ${pid} is running here (slow, not orphaned)`);

    // The service crashes: worker and engine killed at once.
    const gone = new Promise<void>((r) => worker.once('exit', () => r()));
    worker.kill('SIGKILL');
    process.kill(pid, 'SIGKILL');
    await gone;
    await until(() => processFacts(pid).kind !== 'running' || (processFacts(pid) as { state: string | null }).state === 'Z', 60_000);
    const pass = reapOnce(cfg());
    expect(pass.outcomes.map((o) => o.done)).toEqual(['released']);
    expect(pass.outcomes[0]?.why).toMatch(new RegExp(`; dead: pid ${pid} (is gone on this machine|has exited on this machine \\(a zombie left to pid 1: its worker is gone too\\))$`));

    const state = channelStateOf(CH, { staleAfterMs: 300 });
    expect([state.problems, state.orders.map((o) => [o.order_id, o.state, o.holder])]).toEqual([[], [['r-1', 'open', null]]]);
    const oracle = JSON.parse(execFileSync(ORACLE, [CH, '--compact'], { encoding: 'utf8' })) as { orders: Record<string, { state: string; holder: string | null }> };
    expect(oracle.orders['r-1']).toMatchObject({ state: 'open', holder: null });
    expect(execFileSync(path.join(KIT, 'ferry-tasks.sh'), [CH], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })).toMatch(/^ {2}r-1\s+-\s+Open\b/m);

    // fang's worker starts again: its own recovery (release_own_dead_runs) finds r-1 no longer its.
    const release = fs.readFileSync(path.join(CH, 'tasks', 'r-1', 'release.fang.json'));
    ferry('fang', ['agent', 'run', '--workspace', ws('fang'), '--once']);
    expect(fs.readFileSync(path.join(CH, 'tasks', 'r-1', 'release.fang.json'))).toEqual(release);
    expect(channelStateOf(CH, { staleAfterMs: 300 }).orders.map((o) => [o.order_id, o.state, o.holder])).toEqual([['r-1', 'open', null]]);
  });
});
