import 'server-only';
/**
 * The parts made from one index database: its statements, what memory keeps of it, what the
 * disk looked like, the channel level, the writer. They live together and go together: a rebuild
 * (a new database) makes them all anew, a resync (memory made again from the same database)
 * keeps the connection's parts and makes the memory's anew; either replaces the one object.
 */
import type { DB } from '../db';
import { IndexStore } from '../store/store';
import { StoredIndex } from '../store/stored';
import { ChannelFacts } from './facts';
import { FolderLooks } from './looks';
import { ChannelLevel } from './channel-level';
import { PassWriter } from './pass-writer';
import type { Pipeline } from './pipeline';

export interface IndexParts {
  /** Every SQL statement the indexer runs (store.ts). */
  readonly store: IndexStore;
  /** What memory does not keep (finished orders, their folders), read from the index. */
  readonly stored: StoredIndex;
  /** The channel-wide facts of the cards not finished (facts.ts). */
  readonly facts: ChannelFacts;
  /** What changed on disk (looks.ts). */
  readonly looks: FolderLooks;
  /** The roster, retirements, pins and ledger files (channel-level.ts). */
  readonly level: ChannelLevel;
  /** Stores passes' results (pass-writer.ts). */
  readonly writer: PassWriter;
}

/**
 * Loads what memory keeps from the database (a start, a resync): the orders not finished, how
 * many finished ones each holder holds, the live folders' fingerprints, the folders whose names
 * may not be canonical.
 */
export function loadMemory(h: Pick<IndexParts, 'stored' | 'facts' | 'looks'>): void {
  // doneHeld first: an iterator left open by a read that throws would keep the connection busy.
  const doneHeld = h.stored.doneHeld();
  h.facts.load(h.stored.liveCards(), doneHeld);
  for (const r of h.stored.liveDirs()) h.looks.remember(r.dir, r.self, r.listing);
  for (const d of h.stored.maybeVariantDirs()) h.facts.noteVariant(d, true);
}

/** The parts of the index database `db`, nothing loaded yet (the first index loads them). */
export function openParts(p: Pipeline, db: DB): IndexParts {
  const store = new IndexStore(db);
  const stored = new StoredIndex(db);
  const facts = new ChannelFacts(stored.orders);
  const looks = new FolderLooks(p.opts.root, (d) => store.pathsIn(d), stored.folders, p.log);
  return { store, stored, facts, looks, level: new ChannelLevel(store, p), writer: new PassWriter(p, { store, facts, looks }) };
}

/**
 * The parts of the same database with what memory keeps loaded from it again, as a warm start
 * loads it; the connection's parts (store, stored rows, channel level) are kept.
 */
export function reloadParts(p: Pipeline, old: IndexParts): IndexParts {
  const { store, stored } = old;
  const looks = new FolderLooks(p.opts.root, (d) => store.pathsIn(d), stored.folders, p.log);
  const facts = new ChannelFacts(stored.orders);
  loadMemory({ stored, facts, looks });
  facts.setLastArrivals(store.latestArrivals());
  facts.ferryRetired = store.ferryRetiredNames();
  return { ...old, facts, looks, writer: new PassWriter(p, { store, facts, looks }) };
}
