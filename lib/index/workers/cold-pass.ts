import { ordersChanged } from '../../ledger/ledger-facts';
import 'server-only';
/**
 * A cold index of a large folder on every core, in two passes:
 *
 * 1. **Read, unverified.** Worker threads (and this thread between storing) read and derive
 *    every order folder taking each signature as valid unchecked (PassContext.defer). The
 *    cards are stored and settled, each one derived from unchecked signatures marked in the
 *    `unverified` table, and the board shows (progress phase `verifying`): the operator sees the
 *    lanes once the folder has been read, not once every signature is checked.
 *    Each signature taken so is kept on disk (spill.ts: folder, key, signature, message).
 * 2. **Check behind the board.** The kept signatures are verified on every core
 *    (runChecksInWorkers, a segment file at a time; the folders are not read again). The workers
 *    begin as soon as pass 1 has read everything, while this thread settles and makes the
 *    indexes; what they find waits for the board. A folder whose signatures all hold has its
 *    mark cleared: its card was the verified one. A folder in which one failed is passed once
 *    more on this thread, verifying everything, and its card replaced: a forged record shown in
 *    pass 1 ends as a problem. This thread verifies the ledger files, then joins the segments.
 *    A file that changed after pass 1 read it is the looks' to find (as any change): what the
 *    board showed of it was checked as read.
 *
 * Nothing unchecked is remembered as checked: pass 1's file rows carry no signature outcome, and
 * a start that finds marks left (a process killed while checking) passes those folders again.
 */
import type { Pipeline } from '../writer/pipeline';
import type { OrderPassResult, PassContext } from '../writer/order-pass';
import type { ArrivalOf } from '../../ledger/clock-steps';
import { runChecksInWorkers, runPassesInWorkers, type WorkerSetup } from './worker-pool';
import { CaseGroupCollector, passFolder } from '../writer/passes';
import { checkSegment, segmentsIn, SpillWriter, type SegmentCheck } from './spill';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beginBulkLoad, endBulkLoad } from '../db';

/** What a cold pass is given besides the pipeline. */
export interface ColdPassRun {
  /** Worker threads besides this one (at least 1). */
  readonly workers: number;
  /** Arrivals on the index's clock (undefined: ctimes, no clock step seen). */
  readonly arrival: ArrivalOf | undefined;
}

/** What the "ready" line says of a cold pass. */
export interface ColdPassReport {
  /** Settling every card after pass 1, ms. */
  readonly settleMs: number;
  /** Making the indexes the load went without, ms. */
  readonly indexMs: number;
  /** From the start of pass 1 to the board shown, ms (index clock). */
  readonly boardVisibleMs: number;
  /** Signatures taken unchecked in pass 1, and folders passed again because one failed. */
  readonly deferred: number;
  readonly passedAgain: number;
}

/** Runs both passes over `list` (every order folder, sorted). Rejects when a worker fails. */
export async function coldPass(list: readonly string[], p: Pipeline, run: ColdPassRun): Promise<ColdPassReport> {
  const spillDir = fs.mkdtempSync(path.join(os.tmpdir(), 'claimboard-unchecked-'));
  try {
    return await passes(list, p, run, spillDir);
  } finally {
    fs.rmSync(spillDir, { recursive: true, force: true });
  }
}

async function passes(list: readonly string[], p: Pipeline, run: ColdPassRun, spillDir: string): Promise<ColdPassReport> {
  const { level, store, facts, writer } = p.parts;
  const t0 = p.clock();
  const base = level.workerSetup(facts.ferryRetired);
  if (!base) throw new Error('internal: channel context not read');
  const setup = { ...base, spillDir };

  // Pass 1: read and derive, every signature kept unchecked in segment files (spill.ts), into
  // tables without their random-order indexes (db.ts bulk load).
  beginBulkLoad(store.db);
  const results: OrderPassResult[] = [];
  let deferred = 0;
  const groups = new CaseGroupCollector(list, (r) => {
    deferred += r.deferred;
    results.push(r);
  });
  const spill = new SpillWriter(spillDir, 'main');
  const unchecked: PassContext = { ...level.passContext(new Map(), facts.ferryRetired, run.arrival), defer: (d, k, m, s) => spill.add(d, k, m, s) };
  let sinceFlush = 0;
  let readHere = 0; // files this thread read (the workers' come with their results)
  await runPassesInWorkers(
    list,
    run.workers,
    setup,
    (r) => {
      groups.take(r);
      if (results.length >= 1000) writer.storeResults(results.splice(0), true);
    },
    (read) => p.setProgress({ files_read: read + readHere }),
    (d) => {
      const r = passFolder(d, unchecked);
      readHere += r.files.length;
      // A folder's records stay in one segment: flushed between folders only.
      if (++sinceFlush >= 50) {
        spill.flush();
        sinceFlush = 0;
      }
      return r;
    },
  );
  spill.flush();
  groups.flush(); // a sibling that vanished meanwhile
  writer.storeResults(results.splice(0), true);

  // Pass 2 starts on the workers now, while this thread settles the cards and makes the indexes
  // (the workers are handed enough segments at once to last that long); what they find is held
  // until the board shows.
  const checks = startChecks(p, run.workers, setup, spillDir, deferred);
  try {
    const ts = performance.now();
    p.settle(true);
    const settleMs = performance.now() - ts;
    const ti = performance.now();
    endBulkLoad(store.db);
    const indexMs = performance.now() - ti;
    const boardVisibleMs = p.clock() - t0;
    p.setProgress({ phase: 'verifying', signatures_to_check: deferred, signatures_checked: 0 });
    store.addChange('*', p.clock());
    p.log(`index: indexes made in ${(indexMs / 1000).toFixed(1)} s`);
    p.log(`index: board visible in ${(boardVisibleMs / 1000).toFixed(1)} s, unverified: ${store.unverifiedCount()} orders, ${deferred} signatures to check`);
    await p.opts.onBoardVisible?.();

    checks.release();
    // This thread verifies the ledger files first, a file at a time, then joins the segments: the
    // workers take segments meanwhile, so no thread is left with a ledger file when they end.
    const before = level.ledgerFacts();
    await level.readLedgersYielding();
    p.addVerified((await checks.finish()).verified);
    // Whatever is still marked (a folder where a signature failed) is passed again here, and the
    // orders the ledger files say more about than was known when they were passed.
    const again = checks.failed;
    for (const id of ordersChanged(before, level.ledgerFacts())) again.add(id);
    for (const d of store.unverifiedDirs()) again.add(d);
    if (again.size > 0) p.passDirs(again);
    const left = store.unverifiedCount();
    if (left > 0) p.log(`index: ${left} orders still marked unverified after checking (internal); the next start passes their folders again`);
    p.setProgress({ signatures_checked: deferred });
    p.log(
      `index: checked ${checks.checked()} signatures behind the board in ${((p.clock() - t0 - boardVisibleMs) / 1000).toFixed(1)} s; ${again.size} folders passed again (a signature failed)`,
    );
    return { settleMs, indexMs, boardVisibleMs, deferred, passedAgain: again.size };
  } catch (e) {
    checks.abort(); // the workers end; the caller removes the segments
    throw e;
  }
}

/** Pass 2's checks on the worker threads, begun before the board shows. */
interface Checks {
  /** Folders in which a signature failed (to be passed again, verifying everything). */
  readonly failed: Set<string>;
  /** Signatures checked so far, of those applied. */
  checked(): number;
  /** The board shows: what the checks found so far is applied (marks cleared), the rest as it comes. */
  release(): void;
  /** This thread checks segments too; resolves when every segment is checked (rejects when a worker failed). */
  finish(): Promise<{ readonly verified: number }>;
  /** Tells the workers to end (the pass failed); this thread takes no segment. */
  abort(): void;
}

/**
 * Starts checking every segment in `spillDir` on the worker threads. Until `release`, what they
 * find is held: nothing is cleared before the board shows (a test may hold that phase open).
 */
function startChecks(p: Pipeline, workers: number, setup: WorkerSetup, spillDir: string, deferred: number): Checks {
  const { store, facts } = p.parts;
  const failed = new Set<string>();
  let checked = 0;
  let held: SegmentCheck[] | null = [];
  // A folder whose signatures all hold has its mark cleared: its card was the verified one.
  const apply = (c: SegmentCheck) => {
    checked += c.checked;
    for (const d of c.failed) failed.add(d);
    store.transaction(() => {
      for (const d of c.ok) {
        const id = facts.idIn(d);
        if (id !== undefined) store.clearUnverified(id);
      }
    });
    p.setProgress({ signatures_checked: Math.min(checked, deferred) });
  };
  let join = () => {};
  const joined = new Promise<void>((r) => (join = r));
  const stop = new AbortController();
  const onCheck = (c: SegmentCheck) => {
    if (!held) return apply(c);
    held.push(c);
    p.opts.onCheckHeld?.();
  };
  const running = runChecksInWorkers(segmentsIn(spillDir), workers, setup, onCheck, () => {}, {
    local: (f) => checkSegment(f, p.verifyBytes),
    localAfter: joined,
    stop: stop.signal,
  });
  // Awaited by finish(); a worker's failure before then must not go unhandled, and ends the rest.
  running.catch(() => stop.abort());
  return {
    failed,
    checked: () => checked,
    release: () => {
      for (const c of held ?? []) apply(c);
      held = null;
    },
    finish: () => {
      join();
      return running;
    },
    abort: () => {
      stop.abort();
      join();
    },
  };
}
