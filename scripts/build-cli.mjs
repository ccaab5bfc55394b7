#!/usr/bin/env node
// Builds the CLI (bin/cli.ts) and the index worker thread (lib/index/workers/order-worker.ts) into plain
// JavaScript under dist/, once: before `npm pack` (`prepack`, with --clean: dist/ from nothing),
// and by bin/claimboard.mjs in a checkout where the bundle is missing or its sources are newer. A claimboard start then loads one file and no bundler (`state` on a
// small channel spent 0.7-1.0 s of every call in esbuild). dist/inputs.json lists the source
// files each bundle was built from, so the freshness check stats exactly those.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const projectDir = path.resolve(import.meta.dirname, '..');
const ENTRIES = [
  ['bin/cli.ts', 'cli'],
  ['lib/index/workers/order-worker.ts', 'order-worker'],
];

/** How claimboard's code is bundled for Node (also a test's child process, test/support/child-bundle.ts). */
export const NODE_BUNDLE = {
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Native modules load from node_modules at run time (both are dependencies of the package).
  // next: the web process (bin/web.ts) runs the installed Next.js, never a bundled copy.
  external: ['better-sqlite3', 'sodium-native', 'next'],
  // `server-only` throws outside Next's react-server build; the CLI is server-side by nature.
  alias: { 'server-only': path.join(projectDir, 'bin', 'server-only-stub.mjs') },
  // Bundled CommonJS packages (commander) call require(); ESM output has none of its own.
  banner: { js: "import { createRequire as __cbRequire } from 'node:module'; const require = __cbRequire(import.meta.url);" },
};

/**
 * Bundles the entries into `<projectDir>/dist/` (cli.mjs, order-worker.mjs, and the chunks they
 * share) and writes dist/inputs.json ({inputs: the project's own source files, relative}).
 * Everything but better-sqlite3 and sodium-native (native) is bundled, minified, and split so that `state` loads
 * none of `serve`'s code: a `state --json` call on a small channel takes ~0.17 s here against
 * ~0.45 s with the dependencies loaded from node_modules (zod alone ~0.13 s). Chunks are named
 * by content and written before the entries (each a temp file renamed into place), so a process
 * still running an older build keeps finding its own chunks. Throws when esbuild is not
 * installed or a source does not compile. `clean`: remove dist/ first. `out`: another folder
 * than dist/ (the package check builds a package's bundle apart from the checkout's own).
 */
export async function buildCli({ clean = false, out = path.join(projectDir, 'dist') } = {}) {
  const { default: esbuild } = await import('esbuild');
  // A package ships dist/ whole: built from nothing, it holds no chunk of an earlier build.
  if (clean) fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  let r;
  try {
    r = await esbuild.build({
      entryPoints: Object.fromEntries(ENTRIES.map(([src, name]) => [name, path.join(projectDir, src)])),
      bundle: true,
      splitting: true,
      ...NODE_BUNDLE,
      outdir: out,
      outExtension: { '.js': '.mjs' },
      entryNames: '[name]',
      chunkNames: 'chunk-[hash]',
      minify: true,
      sourcemap: 'linked',
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
  } finally {
    await esbuild.stop?.(); // no esbuild service process left beside a long-running server
  }
  const entries = new Set(ENTRIES.map(([, name]) => path.join(out, `${name}.mjs`)));
  const files = [...r.outputFiles.filter((f) => !entries.has(f.path)), ...r.outputFiles.filter((f) => entries.has(f.path))];
  for (const f of files) writeAtomic(f.path, f.contents);
  const inputs = Object.keys(r.metafile.inputs)
    .map((p) => path.relative(projectDir, path.resolve(projectDir, p)))
    .filter((p) => !p.split(path.sep).includes('node_modules'))
    .sort();
  writeAtomic(path.join(out, 'inputs.json'), JSON.stringify({ inputs }, null, 1) + '\n');
  // Chunks of earlier builds: kept a day for processes that still run them, then removed.
  const current = new Set(files.map((f) => path.basename(f.path)));
  for (const name of fs.readdirSync(out)) {
    if (!name.startsWith('chunk-') || current.has(name)) continue;
    const file = path.join(out, name);
    if (Date.now() - fs.statSync(file).mtimeMs > 86_400_000) fs.rmSync(file, { force: true });
  }
}

/** Writes `file` through a temp file with a leading dot renamed into place. */
function writeAtomic(file, contents) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, contents);
  fs.renameSync(tmp, file);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const at = process.argv.indexOf('--out');
    const out = at > 0 && process.argv[at + 1] ? path.resolve(process.argv[at + 1]) : undefined;
    await buildCli({ clean: process.argv.includes('--clean'), out });
    console.log(`claimboard: built ${path.relative(projectDir, out ?? path.join(projectDir, 'dist')) || '.'}/cli.mjs and order-worker.mjs`);
  } catch (e) {
    if (e?.code === 'ERR_MODULE_NOT_FOUND') {
      // An install without dev dependencies: bin/claimboard.mjs says what is missing when it runs.
      console.warn('claimboard: esbuild is not installed; the CLI bundle was not built');
    } else {
      console.error(`claimboard: building the CLI failed: ${e instanceof Error ? e.message : String(e)}`);
      process.exitCode = 1;
    }
  }
}
