/**
 * A test's child process script bundled as `claimboard` itself ships (scripts/build-cli.mjs: one
 * ES module, better-sqlite3 and sodium-native outside it), so each start of the child loads one
 * file instead of transpiling every source file through tsx: a crash test's child started in
 * about 1.2 CPU-seconds that way, most of it the transpiling, twenty-five times a run.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(__dirname, '../..');

/** Bundles `entry` (repo-relative) into node_modules/.cache (so the externals resolve from the repo) and returns the bundle's path; once per process and content. */
export async function childBundle(entry: string): Promise<string> {
  const { default: esbuild } = await import('esbuild');
  const outDir = path.join(REPO, 'node_modules', '.cache', 'claimboard-test-children');
  fs.mkdirSync(outDir, { recursive: true });
  const r = await esbuild.build({
    entryPoints: [path.join(REPO, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3', 'sodium-native', 'next'],
    alias: { 'server-only': path.join(REPO, 'bin', 'server-only-stub.mjs') },
    banner: { js: "import { createRequire as __cbRequire } from 'node:module'; const require = __cbRequire(import.meta.url);" },
    write: false,
    logLevel: 'silent',
  });
  const code = r.outputFiles[0]?.contents;
  if (!code) throw new Error(`esbuild gave no output for ${entry}`);
  const hash = crypto.createHash('sha256').update(code).digest('hex').slice(0, 12);
  const file = path.join(outDir, `${path.basename(entry, '.ts')}-${hash}.mjs`);
  if (!fs.existsSync(file)) {
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, code);
    fs.renameSync(tmp, file);
  }
  return file;
}
