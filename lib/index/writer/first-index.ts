import 'server-only';
/**
 * The indexer's first index, at start and after a rebuild (pipeline.ts does the rest):
 * what the database remembers is loaded (the orders not finished, the live folders'
 * fingerprints), then only the folders that changed are read: every folder on a cold start,
 * on every core with the board shown before the signatures are checked (cold-pass.ts); on a
 * warm start the folders a quick look finds changed, the finished orders' folders left to the
 * sweep's first slices (looks.ts).
 */
import os from 'node:os';
import path from 'node:path';
import type { Pipeline } from './pipeline';
import { loadMemory } from './index-parts';
import { BeatGapRecorder } from './beat-gaps';
import { coldPass } from '../workers/cold-pass';
import { RULEBOOK_VERSION } from '../../ledger/rulebook-version';

/** The first index: what the database remembers, then the folders that changed. Returns whether it was a warm start. */
export async function firstIndex(h: Pipeline): Promise<boolean> {
  const { store: s, stored, facts, looks, level } = h.parts;
  const t0 = h.clock();
  h.beatGaps = new BeatGapRecorder(s, t0, h.opts.staleAfterMs);
  s.writeMeta('channel', path.resolve(h.opts.root));
  s.writeMeta('stale_after_ms', h.opts.staleAfterMs);
  // In use: a stop that is not clean makes the next open check every page (db.ts; openWriter's own mark may have been refused).
  s.writeMeta('closed_cleanly', false);
  h.guard.saveClock();
  level.load();
  const warm = s.hasFiles();
  // What the database remembers of the work not finished: per order what the channel-wide
  // facts need (no card is parsed), per folder a pair of fingerprints.
  loadMemory(h.parts);
  h.holds?.forget();
  h.touchHolds();
  h.setProgress({ phase: 'scanning' });
  h.log(warm ? `index: warm start, ${looks.size} folders remembered` : 'index: cold start');

  const dirty = new Set<string>();
  let seen = looks.readChannelLevel();
  if (!warm) {
    // A cold start: every folder is read anyway, and reading it stats it.
    for (const n of looks.tasksNames() ?? []) dirty.add(n);
    seen += dirty.size;
  } else {
    // A warm start is a quick look against the remembered folders: the live ones now, the
    // finished orders' by the sweep's first slices just after (at a million orders, 700,000
    // lstats of inodes no longer cached); the rest of the sweep finds what changed in place.
    const look = looks.quick(false);
    for (const d of look.dirty) dirty.add(d);
    seen += look.folders;
    looks.begin();
    // The latest arrival of every writer, as remembered.
    facts.setLastArrivals(s.latestArrivals());
    // Cards shown unverified by a cold index that was stopped while checking: passed again, every signature checked.
    for (const d of s.unverifiedDirs()) dirty.add(d);
  }
  // Folders of stored orders that have no stored fingerprints (the look finds the others gone).
  for (const d of stored.cardDirsNotListed()) dirty.add(d);
  h.setProgress({ phase: 'reading', files_seen: seen });
  h.log(`index: ${seen} entries, ${dirty.size} order folders to read`);

  // Channel-level files are always read (they are few); a roster change re-reads every folder.
  // Ledger files are verified later, while worker threads read the folders (passDirsCold).
  const rosterChanged = h.readChannelLevel(false);
  if (rosterChanged) for (const d of looks.dirs()) dirty.add(d);
  // Cards another rulebook derived (an upgrade; an index older than the version row) are derived
  // again: every folder read again, no signature checked twice (the checks are remembered).
  const derivedBy = s.readMeta('rulebook');
  if (warm && derivedBy !== RULEBOOK_VERSION) {
    for (const d of looks.dirs()) dirty.add(d);
    h.log(`index: the stored cards were derived by ${derivedBy === null ? 'an older rulebook' : `rulebook ${derivedBy}`}; deriving every order again with rulebook ${RULEBOOK_VERSION}`);
  }

  const unsettled = s.readMeta('unsettled') === true;
  const report = await passDirsCold(h, dirty, !warm);
  // The last run was killed between storing cards and settling them: settle every card.
  if (warm && unsettled) h.settle(true);
  // Folders whose stale time passed while we were not running.
  h.passDue();
  // Only once every card is this rulebook's: a start stopped before here derives them all again.
  s.writeMeta('rulebook', RULEBOOK_VERSION);
  h.setProgress({ phase: 'ready', files_seen: seen, files_read: h.progress.files_read, files_verified: h.verified, ready_at_ms: h.clock() });
  s.addChange('*', h.clock());
  const visible = report?.boardVisibleMs ?? null;
  h.log(
    `index: ready in ${((h.clock() - t0) / 1000).toFixed(1)} s: ${seen} entries seen, ${dirty.size} folders read, ${h.verified} signatures verified (${h.verifierName}), ${looks.size} folders, ${facts.liveCount} orders not finished in memory` +
      (warm ? '' : ` (storing ${(h.parts.writer.storeMs / 1000).toFixed(1)} s, settling ${((report?.settleMs ?? 0) / 1000).toFixed(1)} s on this thread${visible !== null ? `; board visible at ${(visible / 1000).toFixed(1)} s` : ''})`),
  );
  return warm;
}

/**
 * The first index's passes: on every core (worker threads) when many folders must be read, the
 * board shown before the signatures are checked behind it (cold-pass.ts); else on this thread.
 * Returns the cold pass's report, or null when this thread did it.
 */
async function passDirsCold(h: Pipeline, dirs: Set<string>, cold: boolean): Promise<{ settleMs: number; boardVisibleMs: number | null } | null> {
  const list = [...dirs].sort();
  const workers = cold ? (h.opts.workers ?? (list.length > 2000 ? Math.max(1, os.availableParallelism() - 1) : 0)) : 0;
  // Every order is stored, then all are settled at once: nothing to collect per order meanwhile
  // (settle(true) ends it; so does a pass that fails before it).
  const { facts, level } = h.parts;
  if (cold) facts.bulk = true;
  try {
    if (workers === 0 || !level.channel || list.length === 0) {
      level.readLedgers();
      // A warm start settles only what changed (its facts are remembered); a cold one, everything.
      h.passDirs(dirs, cold);
      if (!cold && dirs.size === 0) h.settle(false);
      return null;
    }
    return await coldPass(list, h, { workers, arrival: h.arrivals(null) });
  } finally {
    facts.bulk = false;
  }
}
