import type { LedgerFactsWire } from '../../ledger/ledger-facts';
import 'server-only';
/**
 * Worker threads for a cold index: the order folders are handed to workers in
 * chunks, each worker reading and deriving a chunk with passOrder, its signatures kept to check
 * later (a cold index's pass 1), or checking segments of those signatures (pass 2);
 * results stream back to the indexer, which alone writes the database. A worker has at most
 * a few chunks outstanding, so results never pile up in memory while the indexer is busy.
 */
import { Worker } from 'node:worker_threads';
import os from 'node:os';
import path from 'node:path';
import { settings } from '../../config';
import type { FileOutcome } from '../../ledger/channel';
import type { AgentRecord } from '../../ledger/records';
import type { OrderPassResult } from '../writer/order-pass';
import type { SegmentCheck } from './spill';
import type { ClockStep } from '../../ledger/clock-steps';

/** What a worker needs to rebuild the pass context (plain data). */
export interface WorkerSetup {
  readonly root: string;
  /** Outcomes of the trust files (agents/, retirements/, master.json, grants/). */
  readonly agents: readonly FileOutcome[];
  /** This machine's ferry fleet roster. */
  readonly fleetAgents: readonly { readonly path: string; readonly record: AgentRecord }[];
  readonly pins: readonly (readonly [string, string])[];
  readonly operators: readonly string[];
  readonly retired: readonly string[];
  /** Names retired by `ferry channel retire` releases, as the indexer knows them so far. */
  readonly ferryRetired: readonly string[];
  /** What the ledger files' lines say about orders, as the indexer knows it so far. */
  readonly ledger?: LedgerFactsWire;
  readonly nowMs: number;
  readonly staleAfterMs: number;
  /** The wall clock's steps the indexer saw (steady-clock.ts): arrivals are put on its steady timeline. */
  readonly clockSteps: readonly ClockStep[];
  /** Where a deferring pass keeps the signatures it took unchecked (spill.ts); needed by mode `defer`. */
  readonly spillDir?: string;
}

/**
 * How a worker passes a chunk: `defer` takes every signature as valid unchecked, keeping it in
 * its segment files (spill.ts, setup.spillDir), and sends the results (a cold index's first
 * look); `check` is sent segment files, not folders, and sends one SegmentCheck per file (the
 * checking pass behind the board).
 */
export type PassMode = 'defer' | 'check';

/** Messages to a worker: a run's setup (first in each run), then chunks of folders (or segment files) to pass. */
export type WorkerRequest = { readonly type: 'setup'; readonly setup: WorkerSetup } | { readonly type: 'work'; readonly mode: PassMode; readonly dirs: readonly string[] };

/** Messages from a worker: one per chunk, in the order the chunks were sent. */
export type WorkerMessage =
  | { readonly type: 'results'; readonly results: readonly OrderPassResult[]; readonly files: number; readonly verified: number }
  | { readonly type: 'checks'; readonly checks: readonly SegmentCheck[]; readonly files: number; readonly verified: number }
  | { readonly type: 'error'; readonly message: string };

/**
 * The worker's script: the bundle bin/claimboard.mjs built (plain JavaScript, no loader thread,
 * named by CLAIMBOARD_WORKER_SCRIPT), else the TypeScript sources through tsx (tests).
 */
const BOOT = settings.workerScript() ?? path.join(import.meta.dirname, 'worker-boot.mjs');

/** How long a worker thread no run has taken is kept for the next one, ms (this machine's timers; it decides only when a thread ends). */
const IDLE_MS = 30_000;
/**
 * Worker threads kept at most between runs: as many as two runs at once take (a core but one
 * each): a hub's next channel reads beside the last one's checking pass, and each of the two
 * takes a warm thread the next time (keeping one would start every channel's reading cold).
 */
export const KEPT_AT_MOST = 2 * Math.max(1, os.availableParallelism() - 1);

/**
 * The worker threads of every run in this process: a run takes threads and hands them back when
 * it ends well; a run that fails ends its threads. A thread kept between runs keeps what its
 * engine compiled, so a hub's cold indexes of ten channels one after another, and a cold index's
 * checking pass after its reading pass, run on warm threads instead of starting cold twice a
 * channel. A thread no run took for IDLE_MS ends; a kept thread does not keep the process alive.
 */
class ThreadKeeper {
  private readonly idle = new Map<Worker, NodeJS.Timeout>();

  /** A kept thread, or a new one. */
  take(): Worker {
    for (const [w, timer] of this.idle) {
      clearTimeout(timer);
      this.idle.delete(w);
      w.ref();
      return w;
    }
    const w = new Worker(BOOT, { resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    // A run listens for its thread's errors; one while kept (no run listening) ends the thread, not the process.
    w.on('error', () => {});
    // A thread that ends while kept (it fails on its own) is no longer kept.
    w.on('exit', () => {
      const timer = this.idle.get(w);
      if (timer) clearTimeout(timer);
      this.idle.delete(w);
    });
    return w;
  }

  /** Keeps `w` (its run ended well, every chunk answered) for the next run, IDLE_MS at most; ends it when KEPT_AT_MOST are kept already. */
  give(w: Worker): void {
    if (this.idle.size >= KEPT_AT_MOST) {
      void w.terminate();
      return;
    }
    w.unref();
    const timer = setTimeout(() => {
      this.idle.delete(w);
      void w.terminate();
    }, IDLE_MS);
    timer.unref();
    this.idle.set(w, timer);
  }

  /** Threads kept now (tests). */
  get kept(): number {
    return this.idle.size;
  }
}

const threads = new ThreadKeeper();

/** Worker threads kept for the next run now (tests). */
export const keptThreads = (): number => threads.kept;

/** Folders per chunk sent to a worker, and per chunk passed on this thread between its other work. */
const CHUNK = 200;
const LOCAL_CHUNK = 50;
/** Chunks a worker has at most in hand: enough to stay busy while this thread stores or verifies a ledger file (~0.1 s each). */
const OUTSTANDING = 4;
/**
 * Segments a checking worker is handed at its start, and then has in hand. It starts while this
 * thread settles the cards and makes the indexes (about 2.5 s at 100k orders, no message taken
 * meanwhile), a segment taking about 0.25 s; then two, so that the workers end near together.
 */
const CHECKS_FIRST = 12;
const CHECKS_THEN = 2;

/**
 * Runs passOrder over `dirs` on `n` worker threads and, when `local` is given, on this thread
 * too (a chunk at a time, yielding to the event loop between chunks so the workers' results
 * are taken in). `onResult` gets every result (in no particular order) and may take its time:
 * a worker has at most OUTSTANDING chunks in hand and is sent the next only when it hands
 * over the results of one. `onProgress` gets the running totals of files read and signatures verified by the
 * workers. The workers check no signature: each one is kept in their segment files (mode `defer`;
 * every result's `deferred` counts them). Rejects when a worker fails or `onResult` or `local`
 * throws: every worker is then ended and no later result is handed on.
 */
export function runPassesInWorkers(
  dirs: readonly string[],
  n: number,
  setup: WorkerSetup,
  onResult: (r: OrderPassResult) => void,
  onProgress: (filesRead: number, verified: number) => void,
  local?: (dir: string) => OrderPassResult,
): Promise<{ readonly verified: number; readonly files: number }> {
  return runInWorkers(dirs, n, setup, 'defer', (m) => {
    if (m.type === 'results') for (const r of m.results) onResult(r);
  }, onProgress, local ? (d) => onResult(local(d)) : undefined);
}

/** How this thread takes part in a checking pass, and how it is ended early. */
export interface CheckOptions {
  /** Checks a segment on this thread (absent: only the workers check). */
  readonly local?: (segment: string) => SegmentCheck;
  /** When this thread starts taking segments (at once when absent). */
  readonly localAfter?: Promise<void>;
  /** Aborted: the workers are ended and the run rejects; this thread takes no more segments. */
  readonly stop?: AbortSignal;
}

/**
 * The checking pass behind a board shown unverified: every signature of the segment files
 * `segments` (spill.ts) verified, one file at a time, on `n` worker threads and (as `o` says)
 * this thread, one SegmentCheck per file to `onCheck`. Rejects when a worker fails or `onCheck`
 * throws, or `o.stop` is aborted, ending every worker.
 */
export function runChecksInWorkers(
  segments: readonly string[],
  n: number,
  setup: WorkerSetup,
  onCheck: (c: SegmentCheck) => void,
  onProgress: (filesRead: number, verified: number) => void,
  o: CheckOptions = {},
): Promise<{ readonly verified: number; readonly files: number }> {
  const { local } = o;
  return runInWorkers(segments, n, setup, 'check', (m) => {
    if (m.type === 'checks') for (const c of m.checks) onCheck(c);
  }, onProgress, local ? (d) => onCheck(local(d)) : undefined, { chunk: 1, first: CHECKS_FIRST, then: CHECKS_THEN, localAfter: o.localAfter, stop: o.stop });
}

async function runInWorkers(
  dirs: readonly string[],
  n: number,
  setup: WorkerSetup,
  mode: PassMode,
  onMessage: (m: WorkerMessage & { readonly type: 'results' | 'checks' }) => void,
  onProgress: (filesRead: number, verified: number) => void,
  local?: (dir: string) => void,
  o: {
    /** Items per chunk (to a worker and on this thread); default CHUNK and LOCAL_CHUNK folders. */
    readonly chunk?: number;
    /** Chunks a worker is handed at its start, and then keeps in hand; default OUTSTANDING. */
    readonly first?: number;
    readonly then?: number;
    /** When this thread starts taking chunks (at once when absent). */
    readonly localAfter?: Promise<void>;
    /** Aborted: the workers are ended and the run rejects, this thread takes no more chunks. */
    readonly stop?: AbortSignal;
  } = {},
): Promise<{ readonly verified: number; readonly files: number }> {
  const { chunk, localAfter, stop } = o;
  const first = o.first ?? OUTSTANDING;
  const then = o.then ?? OUTSTANDING;
  let files = 0;
  let verified = 0;
  let next = 0;
  // The run ends as a whole: the first failure (a worker's, this thread's pass, a result the
  // caller could not take, or `stop`) ends every worker, and nothing more is taken or handed on.
  const halt = new AbortController();
  const ends: ((e: Error) => void)[] = [];
  const fail = (e: Error) => {
    if (halt.signal.aborted) return;
    halt.abort();
    for (const end of ends) end(e);
  };
  const take = (size = chunk ?? CHUNK): string[] | null => {
    if (next >= dirs.length || halt.signal.aborted) return null;
    const part = dirs.slice(next, next + size);
    next += size;
    return part;
  };
  const here = async (): Promise<void> => {
    if (!local) return;
    try {
      await localAfter;
      for (let part = take(chunk ?? LOCAL_CHUNK); part; part = take(chunk ?? LOCAL_CHUNK)) {
        for (const d of part) local(d);
        await new Promise((r) => setImmediate(r));
      }
    } catch (e) {
      fail(e instanceof Error ? e : new Error(String(e)));
      throw e;
    }
  };
  const workers = Math.max(0, Math.min(n, Math.ceil(dirs.length / (chunk ?? CHUNK))));
  if (stop?.aborted) throw new Error('index worker: stopped');
  const onStop = () => fail(new Error('index worker: stopped'));
  stop?.addEventListener('abort', onStop, { once: true });
  try {
    await Promise.all([
      here(),
      ...Array.from(
        { length: workers },
        () =>
          new Promise<void>((resolve, reject) => {
            let w: Worker;
            try {
              w = threads.take();
            } catch (e) {
              const err = e instanceof Error ? e : new Error(String(e));
              reject(err);
              fail(err);
              return;
            }
            let outstanding = 0;
            let done = false;
            const send = (): boolean => {
              const chunk = take();
              if (!chunk) return false;
              outstanding++;
              w.postMessage({ type: 'work', mode, dirs: chunk } satisfies WorkerRequest);
              return true;
            };
            const onWorkerMessage = (m: WorkerMessage) => {
              // Messages already on their way when the run ended are not handed on.
              if (halt.signal.aborted) return;
              switch (m.type) {
                case 'results':
                case 'checks':
                  outstanding--;
                  // The next chunk first: the worker works while this thread takes the results.
                  while (outstanding < then && send());
                  // The caller's failure (storing, say) ends the run here; thrown from this
                  // listener it would be uncaught and end the process.
                  try {
                    onMessage(m);
                    files += m.files;
                    verified += m.verified;
                    onProgress(files, verified);
                  } catch (e) {
                    finish(e instanceof Error ? e : new Error(String(e)));
                    break;
                  }
                  if (outstanding === 0) finish();
                  break;
                case 'error':
                  finish(new Error(`index worker: ${m.message}`));
                  break;
              }
            };
            const onError = (e: Error) => finish(e);
            // An exit this run did not ask for (its chunks not all handed back) fails it.
            const onExit = (code: number) => {
              if (!done) finish(new Error(`index worker exited with ${code} before its work was done`));
            };
            const finish = (e?: Error) => {
              if (done) return;
              done = true;
              w.off('message', onWorkerMessage);
              w.off('error', onError);
              w.off('exit', onExit);
              // A thread of a run that failed may still hold chunks: it ends. One whose every chunk was answered is kept.
              if (e || halt.signal.aborted || outstanding > 0) void w.terminate();
              else threads.give(w);
              if (e) {
                reject(e);
                fail(e);
              } else resolve();
            };
            w.on('message', onWorkerMessage);
            w.on('error', onError);
            w.on('exit', onExit);
            ends.push(finish);
            w.postMessage({ type: 'setup', setup } satisfies WorkerRequest);
            for (let i = 0; i < first; i++) send();
            if (outstanding === 0) finish();
          }),
      ),
    ]);
  } finally {
    stop?.removeEventListener('abort', onStop);
  }
  return { verified, files };
}
