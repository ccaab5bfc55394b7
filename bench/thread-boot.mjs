// Boots a bench worker thread: TypeScript through tsx and `server-only` resolved to an empty
// module, as lib/index/workers/worker-boot.mjs does for the indexer's own worker threads, then runs the
// script named by workerData.script (bench/verify-all-thread.ts, bench/board-first-thread.ts).
import { register } from 'node:module';
import { workerData } from 'node:worker_threads';
import { register as registerTsx } from 'tsx/esm/api';

register(
  'data:text/javascript,' +
    encodeURIComponent(
      "export async function resolve(s, c, next) { if (s === 'server-only') return { url: 'data:text/javascript,export{}', shortCircuit: true }; return next(s, c); }",
    ),
);
registerTsx();
await import(workerData.script);
