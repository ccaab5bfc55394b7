import 'server-only';
/**
 * Re-pinning a key deliberately: the index pins the first key seen for a name
 * and never replaces it from the folder; a `key_changed` problem stays until an operator, on
 * this machine, runs `claimboard repin`. Never a click in the page: the folder is not trusted
 * to say which key is right.
 */
import type { DB } from './db';
import { readChannel } from './disk/read-channel';
import { deriveChannel } from '../ledger/channel';
import { serverVerify } from './disk/verifier';
import { canonicalName } from '../ledger/names';
import { IndexStore } from './store/store';

/** Result of a re-pin: the old and new keys (hex). */
export interface Repinned {
  readonly name: string;
  readonly from: string | null;
  readonly to: string;
}

/**
 * Pins `agent`'s key as the roster file in the folder carries it now (or `key` when given,
 * which must equal it: the operator confirms the key they checked out of band). Bumps the
 * index's pins version so a running indexer rebuilds its roster. Throws Error with a one-line
 * reason when the agent has no key in the folder or the given key differs.
 */
export function repin(db: DB, root: string, agent: string, key?: string): Repinned {
  const name = canonicalName(agent);
  const state = deriveChannel(readChannel(root), { nowMs: Date.now(), verify: serverVerify });
  const entry = state.roster.entries.get(name);
  if (!entry?.folder_key) throw new Error(`${name} has no public key in the folder's roster (agents/${name}.json)`);
  if (key && key.toLowerCase() !== entry.folder_key) {
    throw new Error(`the key you gave (${key.slice(0, 12)}…) is not the one in the folder (${entry.folder_key.slice(0, 12)}…); nothing changed`);
  }
  const store = new IndexStore(db);
  const prev = store.pinnedKey(name);
  store.repin(name, entry.folder_key, Date.now());
  return { name, from: prev, to: entry.folder_key };
}
