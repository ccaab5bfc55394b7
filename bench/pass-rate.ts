/**
 * `node --conditions=react-server --import tsx bench/pass-rate.ts <channel> [--n N] [--rounds R] [--hold]`:
 * what reading and deriving one order folder costs on one thread (lib/index/order-pass.ts
 * `passOrder`, as a cold index's first pass runs it: every signature taken unchecked), over the
 * channel's first N order folders (default 20,000), R rounds (default 3; the first warms the JIT
 * and the page cache). Prints each round's µs per folder, wall and CPU (user, system). Asserts
 * nothing; on a channel the bench generated (bench/.cache/channel-v2-<N>), about 7 files a folder.
 *
 * `--hold` (run node with `--expose-gc`): the last round's results are kept, and the heap they
 * take after a full collection is printed: what holding pass 1's results in memory would cost
 * (a board shown before any card is stored would have to hold them, or read the folders twice).
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { isTrustPath, readEntry, type FileOutcome } from '../lib/ledger/channel';
import { serverVerify } from '../lib/index/verifier';
import { passOrder, type PassContext } from '../lib/index/order-pass';
import { passContextOf } from '../lib/index/worker-context';
import type { WorkerSetup } from '../lib/index/worker-pool';
import { entryFromStat } from '../lib/index/read-channel';

const root = process.argv[2];
if (!root || root.startsWith('--')) {
  process.stderr.write('usage: bench/pass-rate.ts <channel> [--n N] [--rounds R]\n');
  process.exit(2);
}
const arg = (k: string, d: number) => {
  const i = process.argv.indexOf(k);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const n = arg('--n', 20_000);
const rounds = arg('--rounds', 3);
const hold = process.argv.includes('--hold');
const gc = (globalThis as { gc?: () => void }).gc;
if (hold && !gc) {
  process.stderr.write('--hold needs node --expose-gc\n');
  process.exit(2);
}

// The roster as the indexer reads it: agents/, retirements/, grants/, master.json.
const trust: FileOutcome[] = [];
const walk = (rel: string): void => {
  const st = fs.lstatSync(path.join(root, rel));
  if (st.isDirectory()) for (const c of fs.readdirSync(path.join(root, rel))) walk(`${rel}/${c}`);
  else if (isTrustPath(rel)) trust.push(readEntry(entryFromStat(root, rel, st)));
};
for (const top of fs.readdirSync(root)) if (isTrustPath(`${top}/`) || top === 'master.json') walk(top);
// The pass context as a worker thread rebuilds it from the indexer's setup, nothing checked.
const setup: WorkerSetup = { root, agents: trust, fleetAgents: [], pins: [], operators: [], retired: [], ferryRetired: [], nowMs: Date.now(), staleAfterMs: 120_000, clockSteps: [] };
const ctx: PassContext = { ...passContextOf(setup, serverVerify), defer: () => true };
const dirs = fs.readdirSync(path.join(root, 'tasks')).sort().slice(0, n);
for (let r = 1; r <= rounds; r++) {
  const t = performance.now();
  const cpu = process.cpuUsage();
  let files = 0;
  const kept: unknown[] = [];
  const heap0 = hold && r === rounds ? (gc!(), process.memoryUsage().heapUsed) : 0;
  for (const d of dirs) {
    const res = passOrder(d, ctx);
    files += res.files.length;
    if (heap0 > 0) kept.push(res);
  }
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  process.stdout.write(
    `round ${r}: ${dirs.length} folders, ${files} files: ${((ms * 1000) / dirs.length).toFixed(0)} µs a folder (wall ${ms.toFixed(0)} ms, user ${(used.user / 1000).toFixed(0)} ms, system ${(used.system / 1000).toFixed(0)} ms)\n`,
  );
  if (heap0 > 0) {
    gc!();
    const mb = (process.memoryUsage().heapUsed - heap0) / 1e6;
    process.stdout.write(`held: ${kept.length} results take ${mb.toFixed(1)} MB of heap after a full collection (${((mb * 1e6) / kept.length / 1000).toFixed(1)} kB a folder)\n`);
  }
}
