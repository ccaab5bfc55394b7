/**
 * `npm run fuzz [-- --seed S --seconds T --files N --per-round K --keep]`: the hostile-folder
 * fuzzer. Builds folders on disk in a temp dir from the seed, runs the real reader,
 * derivation and Indexer on them, and checks the invariants of test/fuzz/harness.ts. Prints the
 * files fuzzed, the distinct problem codes seen, invariant violations and crashes; exits 1 when
 * any invariant broke.
 *
 * Rounds run in a child process that reports each round as it ends; when a round does not end
 * within the bound (`--bound-s`, default 60 s) the child is killed and the round counted as a
 * hang, and the run goes on from the next round.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { addRound, emptyTotals, fuzzRound, type RoundReport } from '../test/fuzz/harness';
import { roundSeed } from '../test/fuzz/mutate';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}
const num = (name: string, dflt: number) => {
  const v = arg(name);
  const n = v === undefined ? dflt : Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number`);
  return n;
};

const seed = num('seed', 1);
const perRound = num('per-round', 25);
const boundMs = num('bound-s', 60) * 1000;
const keep = process.argv.includes('--keep');

async function child(): Promise<void> {
  const from = num('from', 0);
  // The parent owns this folder (and removes it, even when it had to kill this process).
  const work = fs.mkdtempSync(path.join(arg('work') ?? os.tmpdir(), 'child-'));
  const stop = () => {
    fs.rmSync(work, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.stdin.on('end', stop); // the parent went away
  process.stdin.resume();
  try {
    for (let round = from; ; round++) {
      process.stdout.write(JSON.stringify({ start: round }) + '\n');
      const r = await fuzzRound(roundSeed(seed, round), work, { count: perRound, boundMs, keep });
      process.stdout.write(JSON.stringify({ round, report: r }) + '\n');
      // A round may run entirely in microtasks: let signals and stdin events in.
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function parent(): Promise<void> {
  const seconds = arg('seconds') !== undefined ? num('seconds', 10) : arg('files') !== undefined ? Infinity : 10;
  const maxFiles = arg('files') !== undefined ? num('files', 0) : Infinity;
  const totals = emptyTotals();
  const hangs: { round: number; seed: number }[] = [];
  const t0 = Date.now();
  const done = () => Date.now() - t0 >= seconds * 1000 || totals.files >= maxFiles;
  let next = 0;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-fuzz-'));
  console.log(`fuzz: seed ${seed}, ${Number.isFinite(seconds) ? `${seconds} s` : 'no time limit'}, ${Number.isFinite(maxFiles) ? `${maxFiles} files` : 'no file limit'}, ${perRound} hostile entries per round`);
  while (!done()) {
    const proc = spawn(process.execPath, [...process.execArgv, import.meta.filename, '--child', '--seed', String(seed), '--from', String(next), '--per-round', String(perRound), '--bound-s', String(boundMs / 1000), '--work', work, ...(keep ? ['--keep'] : [])], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let current = next;
    let timer: NodeJS.Timeout | null = null;
    const arm = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        hangs.push({ round: current, seed: roundSeed(seed, current) });
        console.log(`fuzz: round ${current} (seed ${roundSeed(seed, current)}) did not end within ${boundMs / 1000} s: killed`);
        if (proc.pid) process.kill(proc.pid, 'SIGKILL');
      }, boundMs);
    };
    arm();
    const lines = readline.createInterface({ input: proc.stdout });
    const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
    for await (const line of lines) {
      let msg: { start?: number; round?: number; report?: RoundReport };
      try {
        msg = JSON.parse(line) as typeof msg;
      } catch {
        continue;
      }
      if (msg.start !== undefined) {
        current = msg.start;
        arm();
        continue;
      }
      if (!msg.report) continue;
      addRound(totals, msg.report);
      for (const v of msg.report.violations) console.log(`VIOLATION seed=${v.seed} ${v.invariant}: ${v.detail}${v.op ? ` [${v.op} ${JSON.stringify(v.path)}]` : ''}`);
      for (const c of msg.report.crashes) console.log(`CRASH seed=${c.seed} during ${c.stage}: ${c.message}`);
      next = (msg.round ?? current) + 1;
      if (done()) break;
    }
    if (timer) clearTimeout(timer);
    if (proc.exitCode === null && proc.pid) {
      proc.stdin?.end();
      process.kill(proc.pid, 'SIGTERM');
    }
    await exited;
    if (hangs.length && hangs[hangs.length - 1]?.round === current) next = current + 1;
  }
  if (!keep) fs.rmSync(work, { recursive: true, force: true });
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  console.log('');
  console.log(`rounds:               ${totals.rounds} in ${secs} s`);
  console.log(`files fuzzed:         ${totals.files}`);
  console.log(`distinct problem codes seen: ${totals.codes.size} (${[...totals.codes].sort().join(', ')})`);
  console.log(`invariant violations: ${totals.violations.length}`);
  console.log(`crashes:              ${totals.crashes.length}`);
  console.log(`hangs:                ${hangs.length}${hangs.length ? ` (${hangs.map((h) => `round ${h.round} seed ${h.seed}`).join(', ')})` : ''}`);
  const ops = [...totals.ops.entries()].sort((a, b) => b[1] - a[1]);
  console.log(`operators:            ${ops.length} (${ops.map(([o, n]) => `${o} ${n}`).join(', ')})`);
  process.exitCode = totals.violations.length + totals.crashes.length + hangs.length > 0 ? 1 : 0;
}

await (process.argv.includes('--child') ? child() : parent());
