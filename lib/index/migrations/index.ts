/**
 * The index's migrations in the order they apply (db.ts runs them): a new one goes at the end
 * with the next id.
 */
import type { Migration } from './migration';
import { initialIndex } from './01-initial-index';
import { perOrderIndex } from './02-per-order-index';
import { ledgerReportMemo } from './03-ledger-report-memo';
import { runsOffsetIndex } from './04-runs-offset-index';
import { cardAgentsIndex } from './05-card-agents-index';
import { folderListingMemo } from './06-folder-listing-memo';
import { alerts } from './07-alerts';
import { decisionFilesIndex } from './08-decision-files-index';
import { tuningObservations } from './09-tuning-observations';
import { unverifiedCards } from './10-unverified-cards';
import { cardRetiresColumn } from './11-card-retires-column';
import { laneCounts } from './12-lane-counts';
import { attentionSince } from './13-attention-since';
import { startIndexes } from './14-start-indexes';
import { lateTarget } from './15-late-target';
import { decided } from './16-decided';
import { fleetHistory } from './17-fleet-history';
import { holdsOneReading } from './18-holds-one-reading';

export type { Migration } from './migration';

/** Every migration, in id order; each applied once. */
export const MIGRATIONS: readonly Migration[] = [
  initialIndex,
  perOrderIndex,
  ledgerReportMemo,
  runsOffsetIndex,
  cardAgentsIndex,
  folderListingMemo,
  alerts,
  decisionFilesIndex,
  tuningObservations,
  unverifiedCards,
  cardRetiresColumn,
  laneCounts,
  attentionSince,
  startIndexes,
  lateTarget,
  decided,
  fleetHistory,
  holdsOneReading,
];
