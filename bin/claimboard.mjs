#!/usr/bin/env node
// claimboard's command line. Bundles the TypeScript sources (bin/cli.ts, and the index worker
// thread's script) with esbuild into plain JavaScript under node_modules/.cache/claimboard/
// (about 0.1 s), then runs it: no loader thread and no transpiler in memory, which matters for
// a server that indexes 100,000 orders within its memory budget (issue 5). The `server-only`
// marker (which throws outside Next's react-server build) resolves to an empty module: the CLI
// is server-side by nature. Where the bundle cannot be written, the sources run through tsx.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';

// Memory over speed for a long-running indexer (issue 5, measured at 100,000 orders): a small
// young generation, and an old generation that grows by 25% of what is live after each full
// collection instead of V8's default factor (up to 4x): the cold index peaked at 473 MB with
// the small young generation alone, 269 MB with both, and took no longer. (V8 reads these when
// it sizes the heap, so setting them at start takes effect.)
v8.setFlagsFromString('--max-semi-space-size=2');
v8.setFlagsFromString('--heap-growing-percent=25');

const projectDir = path.resolve(import.meta.dirname, '..');
process.env.CLAIMBOARD_PROJECT_DIR ??= projectDir;

/** Builds `entry` into `outfile` atomically (a temp file renamed into place); throws on failure. */
function bundle(esbuild, entry, outfile) {
  const tmp = path.join(path.dirname(outfile), `.${path.basename(outfile)}.${process.pid}.tmp`);
  esbuild.buildSync({
    entryPoints: [path.join(projectDir, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    alias: { 'server-only': path.join(projectDir, 'bin', 'server-only-stub.mjs') },
    outfile: tmp,
    logLevel: 'silent',
  });
  fs.renameSync(tmp, outfile);
}

async function load() {
  try {
    const { default: esbuild } = await import('esbuild');
    const out = path.join(projectDir, 'node_modules', '.cache', 'claimboard');
    fs.mkdirSync(out, { recursive: true });
    const cli = path.join(out, 'cli.mjs');
    const worker = path.join(out, 'order-worker.mjs');
    bundle(esbuild, 'bin/cli.ts', cli);
    bundle(esbuild, 'lib/index/order-worker.ts', worker);
    await esbuild.stop?.(); // no esbuild service process left running beside the server
    process.env.CLAIMBOARD_WORKER_SCRIPT = worker;
    return await import(pathToFileURL(cli).href);
  } catch {
    const { register } = await import('node:module');
    const { register: registerTsx } = await import('tsx/esm/api');
    register(
      'data:text/javascript,' +
        encodeURIComponent(
          "export async function resolve(s, c, next) { if (s === 'server-only') return { url: 'data:text/javascript,export{}', shortCircuit: true }; return next(s, c); }",
        ),
    );
    registerTsx();
    return await import('./cli.ts');
  }
}

const { main } = await load();
process.exitCode = await main(process.argv.slice(2));
