/**
 * The cryptography floor of a cold index: `count` Ed25519
 * verifications with the verifier the server would choose, spread over `threads` worker threads
 * (one per core), nothing else. Wall seconds from the moment every thread is loaded and warm to
 * the last one done (thread start-up is not counted: the indexer's workers start once too).
 */
import { Worker } from 'node:worker_threads';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

/** Wall seconds for `count` verifications of `sample` ([key hex, message, signature hex]) on `threads` threads, and the verifier's name. Throws when a sample does not verify. */
export async function verifyOnAllCores(count: number, threads: number, sample: readonly (readonly [string, string, string])[], want: 'node' | 'sodium' | undefined): Promise<{ readonly s: number; readonly verifier: string }> {
  const boot = path.join(import.meta.dirname, 'thread-boot.mjs');
  const script = path.join(import.meta.dirname, 'verify-all-thread.ts');
  const per = Math.ceil(count / threads);
  const workers = Array.from({ length: threads }, () => new Worker(boot, { workerData: { script, want, count: per, sample } }));
  try {
    const names = await Promise.all(workers.map((w) => new Promise<string>((resolve, reject) => {
      w.once('message', (m: { type: string; name: string }) => resolve(m.name));
      w.once('error', reject);
    })));
    const t = performance.now();
    const done = workers.map((w) => new Promise<number>((resolve, reject) => {
      w.once('message', (m: { type: string; bad: number }) => (m.bad > 0 ? reject(new Error(`${m.bad} sample signatures did not verify`)) : resolve(0)));
      w.once('error', reject);
    }));
    for (const w of workers) w.postMessage('go');
    await Promise.all(done);
    return { s: (performance.now() - t) / 1000, verifier: names[0] ?? 'unknown' };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
