import 'server-only';
/**
 * What memory does not keep, read from the index.
 * The indexer keeps in memory only the orders not finished and their folders (facts.ts,
 * looks.ts); a finished order's facts and its folder's fingerprints are read from the `cards`,
 * `deps` and `dirs` tables through these two views, each call a primary-key or indexed lookup
 * but the few that read every row once (a full settle, the quick look, a re-derive of
 * everything). Times: none here; fingerprints are order-pass.ts's.
 */
import type { Statement } from 'better-sqlite3';
import { bulkLoadOpen, type DB } from '../db';
import { orderInfoOf, type StoredOrders } from '../writer/facts';
import type { StoredFolders } from '../writer/looks';
import type { CardInfoRow, DirRow } from './store';

/** The statements (exported for the test of their query plans). */
export const STORED_SQL = {
  info: 'SELECT order_id, order_dir, lane, state, holder, fp, CASE WHEN fp IS NULL THEN card END AS card FROM cards WHERE order_id = ?',
  idIn: 'SELECT order_id FROM cards WHERE order_dir = ? LIMIT 1',
  dependentsOf: 'SELECT order_id FROM deps WHERE dep = ?',
  ids: 'SELECT order_id FROM cards',
  orderDirs: 'SELECT order_dir FROM cards',
  doneDirsHeldByOrNone: "SELECT order_dir FROM cards WHERE lane = 'done' AND (holder IS NULL OR holder IN (SELECT value FROM json_each(?)))",
  liveCards: "SELECT order_id, order_dir, lane, state, holder, fp, CASE WHEN fp IS NULL THEN card END AS card FROM cards WHERE lane <> 'done'",
  // The partial index of finished orders' holders (SQLite without statistics would take the lane index and read every Done card) ...
  doneHeld: "SELECT holder, COUNT(*) AS n FROM cards INDEXED BY cards_done_holder WHERE lane = 'done' AND holder IS NOT NULL GROUP BY holder",
  // ... which a cold bulk load has dropped (a resync during one).
  doneHeldBulk: "SELECT holder, COUNT(*) AS n FROM cards WHERE lane = 'done' AND holder IS NOT NULL GROUP BY holder",
  cardDirsNotListed: 'SELECT order_dir FROM cards c WHERE NOT EXISTS (SELECT 1 FROM dirs d WHERE d.dir = c.order_dir)',
  dir: 'SELECT self, listing FROM dirs WHERE dir = ?',
  dirsAfter: 'SELECT dir, self, listing FROM dirs WHERE dir > ? ORDER BY dir LIMIT ?',
  dirNames: 'SELECT dir FROM dirs',
  // Every name canonicalName may fold (an ASCII capital, or a character outside '!'..'~': space,
  // control, non-ASCII), and more: the caller tells which are variants.
  maybeVariantDirs: "SELECT dir FROM dirs WHERE dir GLOB '*[A-Z]*' OR dir GLOB '*[^!-~]*'",
  orderCount: 'SELECT COUNT(*) FROM cards',
  dirCount: 'SELECT COUNT(*) FROM dirs',
  // A folder is live unless it holds a finished order (looks.ts keeps the live ones in memory):
  // looked up in cards_dir (folder, lane), never by lane, which scans the Done lane per folder.
  liveDirs: "SELECT d.dir, d.self, d.listing FROM dirs d WHERE NOT EXISTS (SELECT 1 FROM cards c WHERE c.order_dir = d.dir AND c.lane = 'done')",
} as const;

type Statements = { readonly [K in keyof typeof STORED_SQL]: Statement };

/** Folders read at once by StoredFolders.forEach. */
const FOREACH_CHUNK = 5000;


/** The index's orders and folders as the indexer's memory reads them (one per connection). */
export class StoredIndex {
  private readonly s: Statements;

  constructor(private readonly db: DB) {
    this.s = Object.fromEntries(Object.entries(STORED_SQL).map(([k, sql]) => [k, db.prepare(sql)])) as unknown as Statements;
  }

  /** The orders view ChannelFacts reads (facts.ts). */
  readonly orders: StoredOrders = {
    info: (id) => {
      const r = this.s.info.get(id) as CardInfoRow | undefined;
      return r ? orderInfoOf(r) : undefined;
    },
    idIn: (dir) => this.s.idIn.pluck().get(dir) as string | undefined,
    dependentsOf: (id) => this.s.dependentsOf.pluck().all(id) as string[],
    ids: () => this.s.ids.pluck().all() as string[],
    orderDirs: () => this.s.orderDirs.pluck().all() as string[],
    doneDirsHeldByOrNone: (names) => this.s.doneDirsHeldByOrNone.pluck().all(JSON.stringify([...names])) as string[],
  };

  /** The folders view FolderLooks reads (looks.ts). */
  readonly folders: StoredFolders = {
    get: (dir) => this.s.dir.get(dir) as { self: number; listing: number } | undefined,
    forEach: (fn) => {
      // In chunks of rows read at once, by primary key: half the time of a row-by-row iterator
      // (1.0 s against 2.1 s for a million folders), and the statement is not left open while fn runs.
      const chunk = this.s.dirsAfter.raw(true);
      try {
        let after = '';
        for (;;) {
          const rows = chunk.all(after, FOREACH_CHUNK) as [string, number, number][];
          for (const [dir, self, listing] of rows) fn(dir, self, listing);
          const last = rows[rows.length - 1];
          if (!last || rows.length < FOREACH_CHUNK) return;
          after = last[0];
        }
      } finally {
        chunk.raw(false);
      }
    },
    after: (after, n) => this.s.dirsAfter.all(after, n) as DirRow[],
    names: () => this.s.dirNames.pluck().all() as string[],
    count: () => this.s.dirCount.pluck().get() as number,
  };

  /** The rows of the orders not finished (a start loads them into memory). */
  liveCards(): Iterable<CardInfoRow> {
    return this.s.liveCards.iterate() as Iterable<CardInfoRow>;
  }

  /** How many finished orders each holder holds. */
  doneHeld(): { holder: string; n: number }[] {
    const bulk = bulkLoadOpen(this.db);
    return (bulk ? this.s.doneHeldBulk : this.s.doneHeld).all() as { holder: string; n: number }[];
  }

  /** The fingerprints of the live folders: those holding no finished order. */
  liveDirs(): Iterable<DirRow> {
    return this.s.liveDirs.iterate() as Iterable<DirRow>;
  }

  /** The stored folders whose names may not be canonical (a superset: noteVariant decides), without reading every name. */
  maybeVariantDirs(): string[] {
    return this.s.maybeVariantDirs.pluck().all() as string[];
  }

  /** How many orders are stored. */
  orderCount(): number {
    return this.s.orderCount.pluck().get() as number;
  }

  /** The folders stored cards name that have no stored fingerprints (gone, or from an old index). */
  cardDirsNotListed(): string[] {
    return this.s.cardDirsNotListed.pluck().all() as string[];
  }
}
