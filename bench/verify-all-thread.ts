/**
 * One thread of bench/verify-all.ts: the chosen verifier (lib/index/disk/verifier.ts chooseVerifier,
 * as the server's threads choose it) over `count` verifications of the sample, in rotation, once
 * the main thread says go. Posts the thread's own seconds.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { chooseVerifier } from '../lib/index/disk/verifier';

const { want, count, sample } = workerData as { want: 'node' | 'sodium' | undefined; count: number; sample: [string, string, string][] };
const v = chooseVerifier({ want });
for (const [k, m, s] of sample.slice(0, 50)) v.verify(k, m, s); // warm: keys, code paths
parentPort?.postMessage({ type: 'ready', name: v.name });
parentPort?.once('message', () => {
  const t = performance.now();
  let bad = 0;
  for (let i = 0; i < count; i++) {
    const [k, m, s] = sample[i % sample.length] as [string, string, string];
    if (!v.verify(k, m, s)) bad++;
  }
  parentPort?.postMessage({ type: 'done', s: (performance.now() - t) / 1000, bad });
});
