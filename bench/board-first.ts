/**
 * `node --conditions=react-server --import tsx bench/board-first.ts <channel> [--rounds R] [--ways derive,sigs,spill,send]`:
 * how soon a board shown before anything is stored could be there (the board visible,
 * 1.5x the read floor), against the read floor measured in the same run. Every order folder is
 * passed as a cold index's first pass passes it (passOrder, every signature taken unchecked) on
 * every core: worker threads and this thread, in chunks, as lib/index/workers/worker-pool.ts hands them
 * out. Each way (board-first-pass.ts `Way`) does only what it names with the results: nothing
 * is stored, no channel-wide fact is settled, no board is answered, so each figure is a lower
 * bound for a design that works that way. Timed from the workers being loaded (the server's
 * bundle loads its workers in tens of ms; tsx takes longer) to the last folder's card in this
 * thread. Asserts nothing; prints one line a way a round.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { serverVerify } from '../lib/index/disk/verifier';
import { passContextOf } from '../lib/index/workers/worker-context';
import { benchSetup } from './channel-setup';
import { readFloor } from './floor';
import { passChunk, ThreadSpill, type ChunkOut, type Way } from './board-first-pass';

const root = process.argv[2];
if (!root || root.startsWith('--')) {
  process.stderr.write('usage: bench/board-first.ts <channel> [--rounds R] [--ways derive,sigs,spill,send]\n');
  process.exit(2);
}
const opt = (k: string): string | undefined => {
  const i = process.argv.indexOf(k);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const rounds = Number(opt('--rounds') ?? 2);
const ways = (opt('--ways') ?? 'derive,sigs,spill,send').split(',') as Way[];
const threads = os.availableParallelism();
/** As lib/index/workers/worker-pool.ts: folders per chunk to a worker and on this thread, chunks a worker has in hand. */
const CHUNK = 200;
const LOCAL_CHUNK = 50;
const OUTSTANDING = 4;

const floors = [readFloor(root), readFloor(root)];
const floor = floors[1]!;
process.stdout.write(`read floor: ${(floor.ms / 1000).toFixed(2)} s (${floor.files} files; the first pass ${(floors[0]!.ms / 1000).toFixed(2)} s warmed the page cache)\n`);
const dirs = fs.readdirSync(path.join(root, 'tasks')).sort();

for (let r = 1; r <= rounds; r++) for (const way of ways) await run(way, r);

/** One way over every folder on every core; prints its line. */
async function run(way: Way, round: number): Promise<void> {
  const spillDir = fs.mkdtempSync(path.join(os.tmpdir(), 'claimboard-board-first-'));
  const setup = benchSetup(root!, spillDir);
  const ctx = passContextOf(setup, serverVerify);
  // Bundled (bench/README.md), the thread's bundle runs as it is; else its source through tsx.
  const bundled = import.meta.filename.endsWith('.mjs');
  const boot = path.join(import.meta.dirname, bundled ? 'board-first-thread.mjs' : 'thread-boot.mjs');
  const script = path.join(import.meta.dirname, 'board-first-thread.ts');
  const workers = Array.from({ length: threads - 1 }, () => new Worker(boot, { workerData: { script, setup, way } }));
  const local = way === 'spill' || way === 'sigs' ? new ThreadSpill(spillDir, 'main') : null;
  try {
    await Promise.all(workers.map((w) => new Promise((ok, no) => (w.once('message', ok), w.once('error', no)))));
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    let next = 0;
    let cards = 0;
    let files = 0;
    const take = (o: ChunkOut) => {
      cards += o.cards.length + o.results.length;
      files += o.files;
    };
    const give = (w: Worker): boolean => {
      if (next >= dirs.length) return false;
      w.postMessage({ dirs: dirs.slice(next, (next += CHUNK)) });
      return true;
    };
    const done = workers.map(
      (w) =>
        new Promise<void>((ok, no) => {
          let inHand = 0;
          for (let i = 0; i < OUTSTANDING; i++) if (give(w)) inHand++;
          if (inHand === 0) return ok();
          w.on('message', (o: ChunkOut) => {
            take(o);
            if (!give(w)) inHand--;
            if (inHand === 0) ok();
          });
          w.once('error', no);
        }),
    );
    // This thread takes a small chunk whenever it is free, as the indexer does between storing.
    const here = new Promise<void>((ok) => {
      const step = () => {
        if (next >= dirs.length) return ok();
        take(passChunk(dirs.slice(next, (next += LOCAL_CHUNK)), ctx, way, local));
        setImmediate(step);
      };
      setImmediate(step);
    });
    await Promise.all([...done, here]);
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    for (const w of workers) w.removeAllListeners('message');
    const ends = workers.map((w) => new Promise<{ bytes: number }>((ok) => w.once('message', ok)));
    for (const w of workers) w.postMessage('end');
    local?.close();
    const bytes = (await Promise.all(ends)).reduce((a, e) => a + e.bytes, local?.bytes ?? 0);
    process.stdout.write(
      `round ${round} ${way.padEnd(6)}: ${(ms / 1000).toFixed(2)} s = ${(ms / floor.ms).toFixed(2)}x the read floor; ${cards} cards, ${files} files on ${threads} threads` +
        ` (process CPU: user ${(cpu.user / 1e6).toFixed(1)} s, system ${(cpu.system / 1e6).toFixed(1)} s)${bytes ? `; results on disk ${(bytes / 1e6).toFixed(0)} MB` : ''}\n`,
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
    fs.rmSync(spillDir, { recursive: true, force: true });
  }
}
