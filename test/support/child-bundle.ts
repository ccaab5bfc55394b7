/**
 * A test's child process script bundled as `claimboard` itself ships (scripts/build-cli.mjs: one
 * ES module, better-sqlite3 and sodium-native outside it), so each start of the child loads one
 * file instead of transpiling every source file through tsx: a crash test's child started in
 * about 1.2 CPU-seconds that way, most of it the transpiling, twenty-five times a run.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const REPO = path.resolve(__dirname, '../..');

/** Bundles `entry` (repo-relative) into node_modules/.cache (so the externals resolve from the repo) and returns the bundle's path; once per process and content. */
export async function childBundle(entry: string): Promise<string> {
  const { default: esbuild } = await import('esbuild');
  const outDir = path.join(REPO, 'node_modules', '.cache', 'claimboard-test-children');
  fs.mkdirSync(outDir, { recursive: true });
  // The CLI bundle's own settings (scripts/build-cli.mjs), imported by path: a script, not a typed module.
  const { NODE_BUNDLE } = (await import(pathToFileURL(path.join(REPO, 'scripts', 'build-cli.mjs')).href)) as { NODE_BUNDLE: Record<string, unknown> };
  const r = await esbuild.build({
    ...NODE_BUNDLE,
    entryPoints: [path.join(REPO, entry)],
    bundle: true,
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
