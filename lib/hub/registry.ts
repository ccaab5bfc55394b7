import 'server-only';
/**
 * The served-channel registry: which channels a `serve` carries, each with its folder, its index
 * file and whether it is served now or gone (and why). The serve writes it (atomically, whole) on
 * start and after every rescan that changed something; the web process reads it to learn which
 * index files to read. A gone channel stays listed with its reason and its index file is kept, so
 * a folder that comes back is served from a warm index.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { writeAtomic } from '../fs/atomic-write';
import { canonicalName, CHANNEL_NAME_RULE, isChannelName } from '../ledger/names';

/** The registry file of a hub, in its index folder (one index file per channel beside it). */
export const HUB_REGISTRY_NAME = 'channels.json';

/** One channel of the registry. `since_ms`: when it entered its state, on this machine's clock. */
export interface RegistryEntry {
  readonly name: string;
  readonly root: string;
  readonly db: string;
  readonly state: 'served' | 'gone';
  /** Why it is gone (null while served). */
  readonly why: string | null;
  readonly since_ms: number;
}

const Entry = z.strictObject({
  name: z.string().refine(isChannelName, { error: `not a channel name (${CHANNEL_NAME_RULE})` }),
  root: z.string().refine((p) => path.isAbsolute(p), { error: 'not an absolute path' }),
  db: z.string().refine((p) => path.isAbsolute(p), { error: 'not an absolute path' }),
  state: z.enum(['served', 'gone']),
  why: z.string().nullable(),
  since_ms: z.number().int().nonnegative(),
});

const Registry = z.strictObject({ channels: z.array(Entry) }).refine((r) => new Set(r.channels.map((c) => c.name)).size === r.channels.length, {
  error: 'two channels of one name',
});

/** A registry file that cannot be used: missing, cut short, not JSON, or not a registry. The message names the file and why. */
export class RegistryError extends Error {}

/** The registry's text for `entries` (stable: one channel a line, so a look at the file reads it). */
export function registryText(entries: readonly RegistryEntry[]): string {
  return `{"channels": [\n${entries.map((e) => `  ${JSON.stringify(e)}`).join(',\n')}\n]}\n`;
}

/** Reads a registry's text; a RegistryError naming `file` and the first thing wrong. */
export function parseRegistry(text: string, file: string): readonly RegistryEntry[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new RegistryError(`the channel registry ${file} is not JSON (${e instanceof Error ? e.message : String(e)}): a serve writes it whole; is another program writing there?`);
  }
  const r = Registry.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new RegistryError(`the channel registry ${file} is not one: ${i ? `${i.path.join('.') || 'the file'}: ${i.message}` : 'unreadable'}`);
  }
  return r.data.channels;
}

/** Writes the registry at `file`, whole: a reader sees the old one or the new one, never a part. The folder is made when missing. */
export function writeRegistry(file: string, entries: readonly RegistryEntry[]): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeAtomic(file, Buffer.from(registryText(entries), 'utf8'), 'replace');
}

/** The identity of the file at `file` (device, inode, size and change time), or null when there is none. */
function fileIdentity(file: string): string | null {
  try {
    const st = fs.statSync(file, { bigint: true });
    return `${st.dev}:${st.ino}:${st.size}:${st.ctimeNs}`;
  } catch {
    return null;
  }
}

/** What readRegistry last read, per file. */
const cached = new Map<string, { readonly id: string; readonly entries: readonly RegistryEntry[] }>();

/** The registry read, with the identity of the file it was read from (what an answer cached by it is keyed by). */
export interface ReadRegistry {
  readonly id: string;
  readonly entries: readonly RegistryEntry[];
}

/**
 * The registry at `file`, read again only when the file there is another one (each write puts a
 * new file in place: a new inode) or changed (size, change time); one stat per call otherwise.
 * A RegistryError when there is none or it cannot be used (a file cut short is not read as an
 * empty hub).
 */
export function readRegistry(file: string): ReadRegistry {
  const id = fileIdentity(file);
  if (id === null) throw new RegistryError(`no channel registry at ${file}: start the dashboard with \`claimboard serve\``);
  const hit = cached.get(file);
  if (hit && hit.id === id) return hit;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new RegistryError(`the channel registry ${file} cannot be read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const entries = parseRegistry(text, file);
  // Stat again: a write between the stat and the read is read again next time, not kept under the old identity.
  const read = { id: fileIdentity(file) === id ? id : `${id}:changed`, entries };
  cached.set(file, read);
  return read;
}

/** The registry a serve of one channel keeps, beside its index file (two such serves in one folder keep two). */
export function soloRegistryFile(dbFile: string): string {
  return `${dbFile}.channels.json`;
}

/**
 * The name of the channel a serve of one channel serves: its folder's name (canonical) when that
 * is a channel name, else `channel` (a serve of one channel takes any folder, as it always has).
 */
export function soloChannelName(root: string): string {
  const base = path.basename(root);
  return isChannelName(base) ? canonicalName(base) : 'channel';
}
