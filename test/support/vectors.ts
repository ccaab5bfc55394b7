/**
 * Loading the conformance vectors of conformance/vectors (its README.md) for tests: a
 * channel folder read from disk, with arrivals placed from `age_s` instead of real ctimes.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ChannelEntry } from '../../lib/ledger/channel';

/** The repository's copy of the conformance cases. */
export const VECTORS_DIR = path.resolve(__dirname, '../../conformance/vectors');

export interface VectorExpect {
  readonly stale_after_s: number;
  readonly age_s?: Record<string, number>;
  readonly orders?: Record<
    string,
    { state: string; lane: string; holder: string | null; flags: string[]; reason?: string; since_age_s?: number }
  >;
  readonly problems?: { path: string; problem: string; line?: number }[];
  readonly ledger?: Record<string, { entries: number; intact: boolean }>;
}

/** Names of the vector cases, sorted. Throws when conformance/vectors is missing. */
export function vectorNames(): string[] {
  if (!fs.existsSync(VECTORS_DIR)) throw new Error(`conformance vectors not found at ${VECTORS_DIR}`);
  return fs
    .readdirSync(VECTORS_DIR)
    .filter((n) => fs.existsSync(path.join(VECTORS_DIR, n, 'expect.json')))
    .sort();
}

export function loadExpect(name: string): VectorExpect {
  return JSON.parse(fs.readFileSync(path.join(VECTORS_DIR, name, 'expect.json'), 'utf8')) as VectorExpect;
}

/**
 * The channel of a case as entries, every file arriving at `nowMs` except those listed in
 * `age_s`, which arrived `age` seconds before it (vectors/README.md). Symlinks are listed as
 * symlinks, directories as directories, dot names skipped as the real reader skips them.
 */
export function vectorEntries(name: string, nowMs: number): ChannelEntry[] {
  return folderEntries(path.join(VECTORS_DIR, name, 'channel'), nowMs, loadExpect(name).age_s ?? {});
}

/** A channel folder on disk as entries, as vectorEntries reads a case's: `ages` (seconds before `nowMs`) by path, else `nowMs`. */
export function folderEntries(root: string, nowMs: number, ages: Readonly<Record<string, number>> = {}): ChannelEntry[] {
  const out: ChannelEntry[] = [];
  const walk = (rel: string) => {
    for (const n of fs.readdirSync(rel ? path.join(root, rel) : root).sort()) {
      if (n.startsWith('.')) continue;
      const r = rel ? `${rel}/${n}` : n;
      const st = fs.lstatSync(path.join(root, r));
      const arrivalMs = nowMs - (ages[r] ?? 0) * 1000;
      if (st.isSymbolicLink()) out.push({ path: r, type: 'symlink', size: st.size, arrivalMs, bytes: null });
      else if (st.isDirectory()) {
        out.push({ path: r, type: 'dir', size: 0, arrivalMs, bytes: null });
        walk(r);
      } else out.push({ path: r, type: 'file', size: st.size, arrivalMs, bytes: new Uint8Array(fs.readFileSync(path.join(root, r))) });
    }
  };
  walk('');
  return out;
}

/** Seeds and public keys of the vector identities (vectors/keys.json). */
export function vectorKeys(): Record<string, { public_key: string; seed: string }> {
  return JSON.parse(fs.readFileSync(path.join(VECTORS_DIR, 'keys.json'), 'utf8')) as Record<
    string,
    { public_key: string; seed: string }
  >;
}
