/**
 * claimboard over real Syncthing. Two real Syncthing instances share one
 * folder over loopback in a private network namespace (scripts/syncthing-pair.sh);
 * test/sync/scenario.ts runs inside the pair: scripted workers write on side A as ferryman
 * does, a real Indexer (folder events on) indexes side B, and claimboard's operator releases
 * a stale claim on B. This test runs it, then judges its report and both folders:
 *
 * 1. B's board converges on every write made on A;
 * 2. with a stale window of at least 10x the measured delay, a worker heartbeating on A never
 *    shows stale on B (while a control claim with no heartbeat does go stale at arrival + window);
 * 3. both sides writing one claim path is a `sync_conflict` problem, never a second claim;
 * 4. deletes on A (the conflict copy, then the whole order) disappear from B's board;
 * 5. the release claimboard writes on B reaches A byte-identical and verifies there.
 *
 * Needs Debian's `syncthing`, python3, curl and `unshare -n` (root, or unprivileged user
 * namespaces); scripts/test.sh installs syncthing. A machine that cannot run it fails here
 * with the pair's output: it is skipped only when CLAIMBOARD_SKIP_SYNCTHING=1 says so.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { channelStateOf } from '../../lib/index/channel-state';
import type { SyncReport, SyncStep } from './scenario';
import { settings } from '../../lib/config';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PAIR = path.resolve(REPO, 'scripts/syncthing-pair.sh');
/** The whole run (pair startup, scenario, shutdown) must end within this: far beyond any run; it only ends one that hangs. */
const BOUND_MS = 400_000;
/** A write reaches the other side within this: far beyond Syncthing's delays (how soon is a figure the scenario prints, not a test). */
const CONVERGE_MS = 60_000;

const skip = settings.skipSyncthing();

interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly ms: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `syncthing-pair.sh BASE -- node scripts/sync-scenario.mjs REPORT` in its own process group, bounded. */
function runPair(base: string, report: string): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn('bash', [PAIR, base, '--', process.execPath, path.join(REPO, 'scripts/sync-scenario.mjs'), report], {
      cwd: REPO,
      detached: true, // its own process group: a timeout ends the pair and everything it started
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, STPAIR_READY_TIMEOUT: '120' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let timedOut = false;
    const kill = (sig: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, sig);
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill('SIGTERM'); // the pair's trap shuts both instances down
      setTimeout(() => kill('SIGKILL'), 5000).unref();
    }, BOUND_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, ms: Date.now() - t0, stdout, stderr });
    });
  });
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // A zombie is not running (its parent will reap it).
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
};

describe.skipIf(skip)('claimboard over real Syncthing (two instances, loopback, private netns)', () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-stpair-'));
  const reportFile = path.join(base, 'report.json');
  let run: Run | null = null;
  let report: SyncReport | null = null;

  afterAll(() => {
    fs.rmSync(base, { recursive: true, force: true });
    expect(fs.existsSync(base)).toBe(false);
  });

  /** The pair's output, for failure messages. */
  const context = () => (run ? `exit ${run.code} signal ${run.signal} timedOut ${run.timedOut} after ${run.ms} ms\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}` : 'not run');

  it('runs the scenario in a Syncthing pair, bounded, and stops both instances', async () => {
    expect(fs.existsSync(PAIR), `${PAIR} is missing`).toBe(true);
    const which = spawnSync('bash', ['-c', 'command -v syncthing'], { encoding: 'utf8' });
    expect(which.status, "Debian's syncthing is not installed (apt-get install -y syncthing; scripts/test.sh does it)").toBe(0);

    run = await runPair(base, reportFile);
    // Printed so the measured numbers are in the test log.
    console.log(`[syncthing pair] ${run.ms} ms\n${run.stdout}${run.stderr}`);
    // What was measured, even if the run was cut short (the other tests judge it).
    if (fs.existsSync(reportFile)) report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as SyncReport;
    // Both Syncthing instances (monitors and their serving children) are gone.
    expect(fs.existsSync(path.join(base, 'pair.env')), `the pair never started:\n${context()}`).toBe(true);
    const env = Object.fromEntries(
      fs
        .readFileSync(path.join(base, 'pair.env'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    const pids = [Number(env.STPAIR_A_PID), Number(env.STPAIR_B_PID)];
    const stopped = /syncthing-pair: stopped \(monitor pids ([\d ]+); children ([\d ]*)\)/.exec(run.stderr);
    expect(stopped, context()).not.toBeNull();
    for (const p of (stopped?.[2] ?? '').trim().split(/\s+/).filter(Boolean)) pids.push(Number(p));
    expect(pids.length).toBeGreaterThanOrEqual(4);
    for (const pid of pids) expect(alive(pid), `syncthing pid ${pid} still running`).toBe(false);

    expect(run.timedOut, context()).toBe(false);
    expect(run.stdout, context()).toMatch(/^READY /m);
    expect(run.code, context()).toBe(0);

    // The scenario ran to its end.
    expect(report, context()).not.toBeNull();
    expect(report?.error ?? null, context()).toBeNull();
    expect(report?.ok).toBe(true);
  });

  const need = (): SyncReport => {
    if (!report) throw new Error(`the scenario did not produce a report:\n${context()}`);
    return report;
  };

  it('1. B converges on each write made on A (and A on the operator entry written on B)', () => {
    const r = need();
    const fromA = r.steps.filter((s) => s.side === 'A');
    // 4 roster entries; fang: order, claim, 2 heartbeats, result; wisp: order, claim, heartbeat,
    // give-up; then the conflict's order.
    expect(fromA.filter((s) => s.phase === 1)).toHaveLength(13);
    expect(fromA).toHaveLength(14);
    const late = (s: SyncStep) => s.board_ms === null || s.board_ms >= CONVERGE_MS || s.file_ms === null;
    expect(fromA.filter(late), 'writes on A that B did not reflect').toEqual([]);
    for (const s of r.steps.filter((x) => x.side === 'B')) {
      expect(s.file_ms, `${s.label} never reached A`).not.toBeNull();
      expect(s.file_ms ?? Infinity).toBeLessThan(CONVERGE_MS);
    }
    // Every kind the workers write was among them, and the card said so.
    for (const label of ['order', 'claim', 'heartbeat 2', 'result', 'give-up', 'roster']) {
      expect(fromA.some((s) => s.label.startsWith(label)), label).toBe(true);
    }
    const board = fromA.map((s) => s.board_ms ?? NaN);
    const file = fromA.map((s) => s.file_ms ?? NaN);
    console.log(
      `[sync delay A->B] file p50 ${pct(file, 50)} ms max ${Math.max(...file)} ms; board p50 ${pct(board, 50)} ms max ${Math.max(...board)} ms (n=${fromA.length})`,
    );

    // The arriving file keeps A's mtime and gets B's ctime, which B's index takes as arrival.
    const a = r.arrival;
    expect(a).not.toBeNull();
    if (!a) return;
    expect(Math.abs(a.b_mtime_ms - a.a_mtime_ms)).toBeLessThan(1);
    expect(a.b_ctime_ms).toBeGreaterThan(a.a_ctime_ms);
    expect(a.b_index_arrival_ms).toBe(a.b_ctime_ms);
  });

  it('2. with a stale window of >= 10x the sync delay, a heartbeating worker never shows stale on B', () => {
    const s = need().staleness;
    expect(s).not.toBeNull();
    if (!s) return;
    const maxBoard = Math.max(...need().steps.filter((x) => x.side === 'A' && x.phase === 1).map((x) => x.board_ms ?? Infinity));
    expect(s.sized_from_ms).toBe(maxBoard);
    expect(s.window_ms).toBeGreaterThanOrEqual(10 * maxBoard);
    expect(s.heartbeat_interval_ms * 5).toBeLessThanOrEqual(s.window_ms);
    // Sampled longer than the window, so a heartbeat that stopped arriving would have shown.
    expect(s.sampled_ms).toBeGreaterThan(s.window_ms + 2000);
    // Counted from the first sample showing the claim on B; from then on it must stay claimed.
    expect(s.live_samples).toBeGreaterThanOrEqual(50);
    expect(
      s.live_stale_samples,
      `the live order showed stale on B (a card with "heartbeat": null and reason no_heartbeat is Syncthing's ` +
        `unlink-then-rename replace seen mid-way; see test/sync/replace-gap.test.ts): ${JSON.stringify(s.live_stale_cards)}`,
    ).toBe(0);
    expect(Object.keys(s.live_states)).toEqual(['claimed']);
    expect(s.live_max_heartbeat_age_ms ?? Infinity).toBeLessThan(s.window_ms);
    // The heartbeats really travelled (not one early arrival that stayed fresh).
    expect(s.beat_arrivals_on_b).toBeGreaterThanOrEqual(Math.floor(s.beats_written / 2));
    expect(s.max_arrival_gap_ms ?? Infinity).toBeLessThan(s.window_ms);
    // Control: the claim whose run never heartbeats goes stale at its arrival + window.
    expect(s.control.stale_observed).toBe(true);
    expect(s.control.reason).toBe('no_heartbeat');
    expect(s.control.stale_after_arrival_ms ?? 0).toBeGreaterThanOrEqual(s.window_ms);
    expect(s.control.stale_after_arrival_ms ?? Infinity).toBeLessThan(s.window_ms + 12_000);
  });

  it('3. a conflict on one path is a sync_conflict problem, never a second claim', () => {
    const c = need().conflict;
    expect(c).not.toBeNull();
    if (!c) return;
    expect(c.settled).toBe(true);
    expect(c.write_gap_ms).toBeLessThan(500); // "about the same time": well inside one sync delay
    expect(c.claimed_at_a).not.toBe(c.claimed_at_b);
    expect(c.copies_b.length).toBeGreaterThanOrEqual(1);
    expect(c.copies_a).toEqual(c.copies_b);
    expect(c.main_identical).toBe(true);
    // The copy is a whole claim by the same agent with the other content: it would be a second
    // record if it were read.
    for (const copy of c.copy_contents_b) {
      expect(copy).toMatchObject({ order_id: 'sync-conflict-5', agent: 'nebra' });
      expect((copy as { claimed_at: string }).claimed_at).not.toBe(c.main_claimed_at);
    }
    expect([c.claimed_at_a, c.claimed_at_b]).toContain(c.main_claimed_at);
    expect(c.problems_b).toEqual(c.copies_b.map((n) => ({ path: `tasks/sync-conflict-5/${n}`, problem: 'sync_conflict' })));
    expect(c.flags_b).toContain('sync_conflict');
    expect([c.state_b, c.holder_b]).toEqual(['claimed', 'nebra']);
    expect(c.samples).toBeGreaterThanOrEqual(20);
    expect(c.max_claim_records).toBe(1);
    expect(c.claim_records_page_b).toBe(1);
    expect(c.claim_records_folder_b).toBe(1);
  });

  it('4. deletes on A are reflected on B: the conflict problem, then the whole order, disappear', () => {
    const d = need().deletes;
    expect(d).not.toBeNull();
    if (!d) return;
    expect(d.copies_deleted.length).toBeGreaterThanOrEqual(1);
    expect(d.problem_gone_ms).not.toBeNull();
    expect(d.problem_gone_ms ?? Infinity).toBeLessThan(CONVERGE_MS);
    expect(d.copies_left_on_b).toEqual([]);
    expect(d.card_gone_ms).not.toBeNull();
    expect(d.card_gone_ms ?? Infinity).toBeLessThan(CONVERGE_MS);
    expect(d.dir_left_on_b).toBe(false);
    expect(fs.existsSync(path.join(base, 'B/folder/tasks/sync-conflict-5'))).toBe(false);
  });

  it('5. the release claimboard writes on B reaches A byte-identical and verifies there', () => {
    const r = need().release;
    expect(r).not.toBeNull();
    if (!r) return;
    expect(r.card_before).toMatchObject({ state: 'stale', holder: 'wisp' });
    expect(r.refusal ?? null).toBeNull();
    expect(r.status).toBe(201);
    expect(r.written).toEqual(['claimboard.channel.json', 'tasks/sync-dead-4/release.keeper.wisp.json', 'ledger.keeper.jsonl']);
    expect(r.board_ms).not.toBeNull();
    for (const rel of r.written) {
      expect(r.reached_a_ms[rel], `${rel} never reached A`).not.toBeNull();
      expect(r.reached_a_ms[rel] ?? Infinity).toBeLessThan(CONVERGE_MS);
      // On disk, after both instances stopped: the same bytes on both sides.
      const a = fs.readFileSync(path.join(base, 'A/folder', rel));
      const b = fs.readFileSync(path.join(base, 'B/folder', rel));
      expect(Buffer.compare(a, b), `${rel} differs between A and B`).toBe(0);
    }
    // A verifies it with the operator key that itself arrived from B.
    const stateA = channelStateOf(path.join(base, 'A/folder'), { staleAfterMs: need().staleness?.window_ms ?? 300_000 });
    expect(stateA.problems).toEqual([]);
    expect(stateA.ledger['ledger.keeper.jsonl']).toMatchObject({ entries: 1, intact: true });
    expect(stateA.roster.operators.has('keeper')).toBe(true);
    const view = stateA.views.get('sync-dead-4');
    expect(view?.card).toMatchObject({ state: 'open', lane: 'queue', holder: null });
    expect(view?.folder.releases.map((x) => [x.record.releaser, x.record.released, x.record.reason])).toEqual([
      ['keeper', 'wisp', 'requeued: wisp never heartbeat on this order'],
    ]);
    // The rest of A's board is what the workers made it.
    const states = Object.fromEntries(stateA.orders.map((o) => [o.order_id, o.state]));
    expect(states).toMatchObject({ 'sync-build-1': 'done', 'sync-migrate-2': 'gave_up', 'sync-dead-4': 'open' });
    expect(states['sync-conflict-5']).toBeUndefined();
    expect(need().final_problems_b).toEqual([]);
  });
});
