/**
 * `node --conditions=react-server --import tsx bench/pass-rate.ts <channel> [--n N] [--rounds R]`:
 * what reading and deriving one order folder costs on one thread (lib/index/order-pass.ts
 * `passOrder`, as a cold index's first pass runs it: every signature taken unchecked), over the
 * channel's first N order folders (default 20,000), R rounds (default 3; the first warms the JIT
 * and the page cache). Prints each round's µs per folder, wall and CPU (user, system). Asserts
 * nothing; on a channel the bench generated (bench/.cache/channel-v2-<N>), about 7 files a folder.
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
  for (const d of dirs) files += passOrder(d, ctx).files.length;
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  process.stdout.write(
    `round ${r}: ${dirs.length} folders, ${files} files: ${((ms * 1000) / dirs.length).toFixed(0)} µs a folder (wall ${ms.toFixed(0)} ms, user ${(used.user / 1000).toFixed(0)} ms, system ${(used.system / 1000).toFixed(0)} ms)\n`,
  );
}
