// Boots a thread of bench/verify-all.ts: TypeScript through tsx and `server-only` resolved to an
// empty module, as lib/index/worker-boot.mjs does for the indexer's own worker threads.
import { register } from 'node:module';
import { register as registerTsx } from 'tsx/esm/api';

register(
  'data:text/javascript,' +
    encodeURIComponent(
      "export async function resolve(s, c, next) { if (s === 'server-only') return { url: 'data:text/javascript,export{}', shortCircuit: true }; return next(s, c); }",
    ),
);
registerTsx();
await import('./verify-all-thread.ts');
