/**
 * `node --conditions=react-server --import tsx bench/pass-rate.ts <channel> [--n N] [--rounds R] [--hold] [--spill]`:
 * what reading and deriving one order folder costs on one thread (lib/index/writer/order-pass.ts
 * `passOrder`, as a cold index's first pass runs it: every signature taken unchecked), over the
 * channel's first N order folders (default 20,000), R rounds (default 3; the first warms the JIT
 * and the page cache). Prints each round's µs per folder, wall and CPU (user, system). Asserts
 * nothing; on a channel the bench generated (bench/.cache/channel-v2-<N>), about 7 files a folder.
 *
 * `--hold` (run node with `--expose-gc`): the last round's results are kept, and the heap they
 * take after a full collection is printed: what holding pass 1's results in memory would cost
 * (a board shown before any card is stored would have to hold them, or read the folders twice).
 * Each result is kept as a worker thread sends it, without its `view`.
 *
 * `--spill`: the last round's results are also written to a temporary file with v8's serializer
 * (what postMessage uses to send them from a worker) and read back; prints the bytes and the
 * µs a folder of each step: what keeping them on disk until they are stored would add.
 */
import fs from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { serverVerify } from '../lib/index/disk/verifier';
import { passOrder, type PassContext } from '../lib/index/writer/order-pass';
import { passContextOf } from '../lib/index/workers/worker-context';
import { benchSetup } from './channel-setup';

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
const spillToo = process.argv.includes('--spill');
const gc = (globalThis as { gc?: () => void }).gc;
if (hold && !gc) {
  process.stderr.write('--hold needs node --expose-gc\n');
  process.exit(2);
}

// The pass context as a worker thread rebuilds it from the indexer's setup, nothing checked.
const setup = benchSetup(root);
const ctx: PassContext = { ...passContextOf(setup, serverVerify), defer: () => true };
const dirs = fs.readdirSync(path.join(root, 'tasks')).sort().slice(0, n);
for (let r = 1; r <= rounds; r++) {
  const t = performance.now();
  const cpu = process.cpuUsage();
  let files = 0;
  const kept: unknown[] = [];
  const keep = (hold || spillToo) && r === rounds;
  const heap0 = hold && keep ? (gc!(), process.memoryUsage().heapUsed) : 0;
  for (const d of dirs) {
    const { view: _view, ...res } = passOrder(d, ctx);
    files += res.files.length;
    if (keep) kept.push(res);
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
  if (keep && spillToo) spillRoundTrip(kept);
}

/** Writes `results` with v8's serializer to a temporary file (length-prefixed) and reads them back; prints the cost of each step. */
function spillRoundTrip(results: readonly unknown[]): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'claimboard-pass-rate-'));
  try {
    const file = path.join(dir, 'results.bin');
    const us = (ms: number) => ((ms * 1000) / results.length).toFixed(1);
    let t = performance.now();
    const fd = fs.openSync(file, 'w');
    let bytes = 0;
    const chunk: Buffer[] = [];
    const flush = () => {
      fs.writeSync(fd, Buffer.concat(chunk));
      chunk.length = 0;
    };
    for (const res of results) {
      const b = v8.serialize(res);
      const len = Buffer.allocUnsafe(4);
      len.writeUInt32LE(b.length);
      chunk.push(len, b);
      bytes += 4 + b.length;
      if (chunk.length >= 2000) flush();
    }
    flush();
    fs.closeSync(fd);
    const writeMs = performance.now() - t;
    t = performance.now();
    const all = fs.readFileSync(file);
    let back = 0;
    for (let at = 0; at < all.length; ) {
      const len = all.readUInt32LE(at);
      v8.deserialize(all.subarray(at + 4, at + 4 + len));
      at += 4 + len;
      back++;
    }
    const readMs = performance.now() - t;
    process.stdout.write(
      `spilled: ${back} results, ${(bytes / 1e6).toFixed(1)} MB (${(bytes / results.length / 1000).toFixed(1)} kB a folder): serialize + write ${us(writeMs)} µs a folder, read + deserialize ${us(readMs)} µs a folder\n`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
