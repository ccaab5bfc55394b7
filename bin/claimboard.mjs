#!/usr/bin/env node
// claimboard's command line. Runs the TypeScript sources through tsx, and resolves the
// `server-only` marker (which throws outside Next's react-server build) to an empty module:
// the CLI is server-side by nature.
import { register } from 'node:module';
import { register as registerTsx } from 'tsx/esm/api';

register(
  'data:text/javascript,' +
    encodeURIComponent(
      "export async function resolve(s, c, next) { if (s === 'server-only') return { url: 'data:text/javascript,export{}', shortCircuit: true }; return next(s, c); }",
    ),
);
registerTsx();
const { main } = await import('./cli.ts');
process.exitCode = await main(process.argv.slice(2));
