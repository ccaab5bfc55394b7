// Boots an index worker thread: TypeScript through tsx, and the `server-only` marker resolved to
// an empty module (as bin/claimboard.mjs does for the main thread), then runs order-worker.ts.
import { register } from 'node:module';
import { register as registerTsx } from 'tsx/esm/api';

register(
  'data:text/javascript,' +
    encodeURIComponent(
      "export async function resolve(s, c, next) { if (s === 'server-only') return { url: 'data:text/javascript,export{}', shortCircuit: true }; return next(s, c); }",
    ),
);
registerTsx();
await import('./order-worker.ts');
