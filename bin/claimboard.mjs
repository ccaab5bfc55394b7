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
