/**
 * One numbered change to the index's schema. The runner (db.ts) applies each once, in id order,
 * in its own transaction, and records it in the `migrations` table.
 *
 * A migration is never edited once shipped: an existing index has already run it. Its SQL text is
 * kept exactly, whitespace included, since SQLite keeps each CREATE statement's text in
 * sqlite_master and a bulk load makes dropped indexes and triggers again from that text.
 */
export interface Migration {
  readonly id: number;
  /** A descriptive name, recorded beside the id. */
  readonly name: string;
  readonly sql: string;
}
