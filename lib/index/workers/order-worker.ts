import 'server-only';
/** An index worker thread: passOrder over the chunks of folders it is sent (see worker-pool.ts). */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { serverVerifier, serverVerify, type Ed25519VerifyBytes } from '../disk/verifier';
import { passOrder, type OrderPassResult, type PassContext } from '../writer/order-pass';
import { checkSegment, SpillWriter, type SegmentCheck } from './spill';
import type { WorkerMessage, WorkerRequest, WorkerSetup } from './worker-pool';
import { passContextOf } from './worker-context';

const { setup } = workerData as { setup: WorkerSetup };
const post = (m: WorkerMessage) => parentPort?.postMessage(m);
let ctx: PassContext | null = null;
let verified = 0;
try {
  // The same roster the indexer built; the passes' signatures counted, the roster's not.
  ctx = passContextOf(
    setup,
    (k: string, m: string, s: string) => {
      verified++;
      return serverVerify(k, m, s);
    },
    serverVerify,
  );
} catch (e) {
  post({ type: 'error', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
}
/** Segments are checked on their bytes (spill.ts), counted like `ctx.verify`. */
const verifyBytes: Ed25519VerifyBytes = (k, msg, sig) => {
  verified++;
  return serverVerifier().verifyBytes(k, msg, sig);
};
let spill: SpillWriter | null = null;
/** This thread's writer of unchecked signatures (setup.spillDir). */
function spillWriter(): SpillWriter {
  if (!setup.spillDir) throw new Error('internal: a deferring pass needs setup.spillDir');
  return (spill ??= new SpillWriter(setup.spillDir, `w${threadId}`));
}
parentPort?.on('message', (m: WorkerRequest) => {
  switch (m.type) {
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
    case 'end':
      parentPort?.close();
      break;
  }
});
