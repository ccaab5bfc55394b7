/**
 * Per order folder, fingerprints of its own stat identity and of its whole listing: a warm
 * start and the periodic looks compare one number per folder instead of every entry's
 * identity. The card's fingerprint is stored so a warm start need not parse cards.
 * Folders without a row are looked at once more (a database from before reads them again).
 */
import type { Migration } from './migration';

export const folderListingMemo: Migration = {
  id: 6,
  name: 'folder_listing_memo',
  sql: `
      CREATE TABLE dirs (dir TEXT PRIMARY KEY, self REAL NOT NULL, listing REAL NOT NULL);
      ALTER TABLE cards ADD COLUMN fp REAL;
    `,
};
