import 'server-only';
/** An index worker thread: passOrder over the chunks of folders it is sent, each run's setup first (see worker-pool.ts). */
import { parentPort, threadId } from 'node:worker_threads';
import { serverVerifier, serverVerify, type Ed25519VerifyBytes } from '../disk/verifier';
import { passOrder, type OrderPassResult, type PassContext } from '../writer/order-pass';
import { checkSegment, SpillWriter, type SegmentCheck } from './spill';
import type { WorkerMessage, WorkerRequest, WorkerSetup } from './worker-pool';
import { passContextOf } from './worker-context';

const post = (m: WorkerMessage) => parentPort?.postMessage(m);
/** The run's setup (a `setup` message begins each run: a thread serves the runs of several cold indexes, one after another). */
let setup: WorkerSetup | null = null;
let ctx: PassContext | null = null;
let verified = 0;
let spill: SpillWriter | null = null;

/** Takes a run's setup: the same roster the indexer built; the passes' signatures counted, the roster's not. */
function begin(next: WorkerSetup): void {
  // The last run's chunks were each flushed before their results were sent.
  spill = null;
  setup = next;
  ctx = null;
  try {
    ctx = passContextOf(
      next,
      (k: string, m: string, s: string) => {
        verified++;
        return serverVerify(k, m, s);
      },
      serverVerify,
    );
  } catch (e) {
    post({ type: 'error', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  }
}
/** Segments are checked on their bytes (spill.ts), counted like `ctx.verify`. */
const verifyBytes: Ed25519VerifyBytes = (k, msg, sig) => {
  verified++;
  return serverVerifier().verifyBytes(k, msg, sig);
};
/** This thread's writer of unchecked signatures (setup.spillDir). */
function spillWriter(): SpillWriter {
  if (!setup?.spillDir) throw new Error('internal: a deferring pass needs setup.spillDir');
  return (spill ??= new SpillWriter(setup.spillDir, `w${threadId}`));
}
parentPort?.on('message', (m: WorkerRequest) => {
  switch (m.type) {
    case 'setup':
      begin(m.setup);
      break;
    case 'work': {
      if (!ctx) return;
      try {
        let files = 0;
        const before = verified;
        switch (m.mode) {
          case 'defer': {
            const spill = spillWriter();
            const c: PassContext = { ...ctx, defer: (d, k, msg, sig) => spill.add(d, k, msg, sig) };
            const results: OrderPassResult[] = [];
            for (const d of m.dirs) {
              const { view: _view, ...r } = passOrder(d, c);
              results.push(r);
              files += r.files.length;
            }
            // On disk before the results are sent: the worker may be ended once they are in.
            spill.flush();
            post({ type: 'results', results, files, verified: verified - before });
            break;
          }
          case 'check': {
            // `dirs` are segment files of signatures taken unchecked (spill.ts).
            const checks: SegmentCheck[] = m.dirs.map((f) => checkSegment(f, verifyBytes));
            post({ type: 'checks', checks, files: 0, verified: verified - before });
            break;
          }
        }
      } catch (e) {
        post({ type: 'error', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
      }
      break;
    }
  }
});
