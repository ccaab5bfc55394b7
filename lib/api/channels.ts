import 'server-only';
/**
 * The channels the web process serves, for the endpoints: the served-channel registry its serve
 * keeps (CLAIMBOARD_HUB, lib/hub/registry.ts), each channel with its own index (readDbOf), or,
 * without one, the one channel of the index the request is given (CLAIMBOARD_DB: a registry of one).
 */
import { readDbOf, type DB } from '../index/db';
import { readRegistry, RegistryError, soloChannelName } from '../hub/registry';
import { settings } from '../config';
import { ClaimboardError } from '../errors';

/** One channel as an endpoint reads it. */
export interface ChannelView {
  readonly name: string;
  readonly state: 'served' | 'gone';
  /** Why it is gone (null while served). */
  readonly why: string | null;
  /** Its index file (its health is named by it), or null when the index was given without one (tests). */
  readonly dbFile: string | null;
  /** Its read-only index; ClaimboardError `index_unavailable` (503) when it cannot be opened (a channel waiting its turn to start). */
  db(): DB;
}

/** The channels served, in name order, and the identity of the registry they were read from (what a cached answer is keyed by). */
export interface ServedChannels {
  readonly id: string;
  readonly list: readonly ChannelView[];
}

/** The one channel listed, when exactly one is and it is served: a serve of one channel, whose answers are as they always were (no channel named in them). */
export function onlyChannel(channels: ServedChannels): ChannelView | null {
  const [first] = channels.list;
  return channels.list.length === 1 && first?.state === 'served' ? first : null;
}

const unavailable = (e: unknown, what: string) => new ClaimboardError('index_unavailable', `${what} is not available yet: ${e instanceof Error ? e.message : String(e)}`);

/** A hub's page cache per channel reader, KiB: at better-sqlite3's 16 MB, 10 readers could hold 160 MB of the 450 MB budget (the pages stay in the OS page cache). */
export const HUB_READER_CACHE_KIB = 4096;

/** A channel's index, opened on first use (the process keeps one connection per file: readDbOf). */
function lazyDb(file: string, name: string): () => DB {
  return () => {
    try {
      return readDbOf(file, HUB_READER_CACHE_KIB);
    } catch (e) {
      throw unavailable(e, `the index of channel ${name}`);
    }
  };
}

/**
 * The channels this process serves: the registry's when CLAIMBOARD_HUB names one (a registry
 * that cannot be read is `index_unavailable`), else the one channel of `db` (the request's index),
 * named after its folder as its serve names it (lib/hub/registry.ts soloChannelName).
 */
export function servedChannels(db: () => DB, rootOf: () => string | null): ServedChannels {
  const file = settings.hubRegistry();
  if (file) {
    let read;
    try {
      read = readRegistry(file);
    } catch (e) {
      if (e instanceof RegistryError) throw unavailable(e, 'the list of channels');
      throw e;
    }
    return {
      id: read.id,
      list: read.entries.map((e) => ({ name: e.name, state: e.state, why: e.why, dbFile: e.db, db: lazyDb(e.db, e.name) })),
    };
  }
  const root = rootOf();
  return { id: 'one', list: [{ name: soloChannelName(root ?? ''), state: 'served', why: null, dbFile: settings.dbFile() ?? null, db }] };
}
