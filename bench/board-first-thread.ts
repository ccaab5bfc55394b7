/** A worker thread of bench/board-first.ts: passes the chunks it is sent (board-first-pass.ts). */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { serverVerify } from '../lib/index/disk/verifier';
import { passContextOf } from '../lib/index/workers/worker-context';
import type { WorkerSetup } from '../lib/index/workers/worker-pool';
import { passChunk, ThreadSpill, type Way } from './board-first-pass';

const { setup, way } = workerData as { setup: WorkerSetup; way: Way };
const ctx = passContextOf(setup, serverVerify);
const spill = (way === 'spill' || way === 'sigs') && setup.spillDir ? new ThreadSpill(setup.spillDir, `w${threadId}`) : null;
parentPort?.on('message', (m: { dirs: readonly string[] } | 'end') => {
  if (m === 'end') {
    spill?.close();
    parentPort?.postMessage({ end: true, bytes: spill?.bytes ?? 0 });
    parentPort?.close();
    return;
  }
  parentPort?.postMessage(passChunk(m.dirs, ctx, way, spill));
});
parentPort?.postMessage({ ready: true });
