#!/usr/bin/env node
// claimboard's command line. Runs the CLI bundle under dist/ (plain JavaScript built once by
// scripts/build-cli.mjs at install or pack time): no bundler and no transpiler at run time,
// which keeps a `claimboard state` call short and a 100,000-order index within its memory
// budget. In a checkout whose sources are newer than the bundle, it is
// rebuilt first (esbuild is a dev dependency there); where that cannot be done, the sources
// run through tsx.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';

// Memory over speed for a long-running indexer: a small
// young generation, and an old generation that grows by 25% of what is live after each full
// collection instead of V8's default factor (up to 4x): the cold index peaked at 473 MB with
// the small young generation alone, 269 MB with both, and took no longer. (V8 reads these when
// it sizes the heap, so setting them at start takes effect.)
// The web process (`web`, started by serve) has its own sizes on its command line.
if (process.argv[2] !== 'web') {
  v8.setFlagsFromString('--max-semi-space-size=2');
  v8.setFlagsFromString('--heap-growing-percent=25');
}

const projectDir = path.resolve(import.meta.dirname, '..');
process.env.CLAIMBOARD_PROJECT_DIR ??= projectDir;
const dist = path.join(projectDir, 'dist');
const cli = path.join(dist, 'cli.mjs');
const worker = path.join(dist, 'order-worker.mjs');

/** True when the bundle is missing, or (in a checkout) one of the sources it was built from changed since. */
function stale() {
  let builtMs;
  try {
    builtMs = Math.min(fs.statSync(cli).mtimeMs, fs.statSync(worker).mtimeMs);
  } catch {
    return true;
  }
  // An installed package ships the bundle without its sources: nothing to compare.
  if (!fs.existsSync(path.join(projectDir, 'bin', 'cli.ts'))) return false;
  try {
    const { inputs } = JSON.parse(fs.readFileSync(path.join(dist, 'inputs.json'), 'utf8'));
    return inputs.some((p) => fs.statSync(path.join(projectDir, p)).mtimeMs > builtMs);
  } catch {
    return true; // no list, or a source moved away: build again
  }
}

async function load() {
  if (stale() && fs.existsSync(path.join(projectDir, 'scripts', 'build-cli.mjs'))) {
    try {
      const { buildCli } = await import('../scripts/build-cli.mjs');
      await buildCli();
    } catch (e) {
      process.stderr.write(`claimboard: could not build the CLI bundle (${e instanceof Error ? e.message : String(e)}); running the sources through tsx\n`);
      return await loadSources();
    }
  }
  if (!fs.existsSync(cli)) return await loadSources();
  process.env.CLAIMBOARD_WORKER_SCRIPT ??= worker;
  return await import(pathToFileURL(cli).href);
}

async function loadSources() {
  const { register } = await import('node:module');
  let registerTsx;
  try {
    ({ register: registerTsx } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write(`claimboard: ${cli} is missing and tsx is not installed: reinstall the package (npm i claimboard), or run \`npm ci\` in a checkout\n`);
    process.exit(1);
  }
  register(
    'data:text/javascript,' +
      encodeURIComponent(
        "export async function resolve(s, c, next) { if (s === 'server-only') return { url: 'data:text/javascript,export{}', shortCircuit: true }; return next(s, c); }",
      ),
  );
  registerTsx();
  return await import('./cli.ts');
}

const { main } = await load();
process.exitCode = await main(process.argv.slice(2));
