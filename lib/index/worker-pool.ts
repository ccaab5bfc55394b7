import 'server-only';
/**
 * Worker threads for a cold index (issue "scale and speed"): the order folders are split
 * among workers, each reading, verifying (node:crypto) and deriving its share with
 * passOrder; results stream back to the indexer, which alone writes the database.
 */
import { Worker } from 'node:worker_threads';
import path from 'node:path';
import type { FileOutcome } from '../ledger/channel';
import type { OrderPassResult } from './order-pass';

/** What a worker needs to rebuild the pass context (plain data). */
export interface WorkerSetup {
  readonly root: string;
  /** Outcomes of the channel-level files (agents/ for the roster). */
  readonly agents: readonly FileOutcome[];
  readonly pins: readonly (readonly [string, string])[];
  readonly operators: readonly string[];
  readonly retired: readonly string[];
  readonly nowMs: number;
  readonly staleAfterMs: number;
}

/** Messages from a worker. */
export type WorkerMessage =
  | { readonly type: 'results'; readonly results: readonly OrderPassResult[]; readonly files: number; readonly verified: number }
  | { readonly type: 'done' }
  | { readonly type: 'error'; readonly message: string };

const BOOT = path.join(import.meta.dirname, 'worker-boot.mjs');

/**
 * Runs passOrder over `dirs` on `n` worker threads. `onResult` gets every result (in no
 * particular order); `onProgress` the running totals of files read and signatures verified.
 * Rejects when a worker fails.
 */
export async function runPassesInWorkers(
  dirs: readonly string[],
  n: number,
  setup: WorkerSetup,
  onResult: (r: OrderPassResult) => void,
  onProgress: (filesRead: number, verified: number) => void,
): Promise<{ readonly verified: number; readonly files: number }> {
  let files = 0;
  let verified = 0;
  const shares: string[][] = Array.from({ length: Math.max(1, n) }, () => []);
  dirs.forEach((d, i) => shares[i % shares.length]?.push(d));
  await Promise.all(
    shares.map(
      (share) =>
        new Promise<void>((resolve, reject) => {
          if (share.length === 0) return resolve();
          const w = new Worker(BOOT, { workerData: { setup, dirs: share } });
          w.on('message', (m: WorkerMessage) => {
            switch (m.type) {
              case 'results':
                for (const r of m.results) onResult(r);
                files += m.files;
                verified += m.verified;
                onProgress(files, verified);
                break;
              case 'done':
                void w.terminate();
                resolve();
                break;
              case 'error':
                void w.terminate();
                reject(new Error(`index worker: ${m.message}`));
                break;
            }
          });
          w.on('error', reject);
          w.on('exit', (code) => {
            if (code !== 0 && code !== 1) reject(new Error(`index worker exited with ${code}`));
          });
        }),
    ),
  );
  return { verified, files };
}
