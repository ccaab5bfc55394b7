import 'server-only';
/**
 * Storing passes: one order folder's pass result (order-pass.ts) into the index. Its rows go
 * through the store (files, fingerprints, problems, holds, dependencies, runs, the card), what
 * the facts and the looks remember of it is updated with them, and the heartbeat gaps and index
 * lag are noted on the way. Cards are stored provisionally: settle (facts.ts) applies the
 * channel-wide facts afterwards and writes the final card through writeCard.
 */
import type { Card } from '../../ledger/derive';
import { laneSortMs } from '../../ledger/card';
import { cyrb53, listingFingerprint, type FileRow, type OrderPassResult } from './order-pass';
import type { IndexStore, StoredFileRow } from '../store/store';
import { fingerprint, type ChannelFacts } from './facts';
import type { FolderLooks } from './looks';
import type { Pipeline } from './pipeline';

/** The parts of the same database a writer stores through; the rest it asks of the pipeline. */
export interface PassWriterParts {
  readonly store: IndexStore;
  readonly facts: ChannelFacts;
  readonly looks: FolderLooks;
}

export class PassWriter {
  /** Time spent storing results, ms (the cold index's "ready" line says it). */
  storeMs = 0;
  /**
   * Folders whose watch may have to change, decided after the settle (updateWatches): a card
   * stored provisionally in the Done lane that settle flags (a dependency gone) would otherwise
   * be unwatched, then watched again, and a new watch looks at the folder once more: a pass
   * every few ms, for ever.
   */
  private readonly watchDue = new Set<string>();

  constructor(
    private readonly pipe: Pipeline,
    private readonly p: PassWriterParts,
  ) {}

  /** Stores passes' results in one transaction, with the mark that their cards are not settled yet. */
  storeResults(results: readonly OrderPassResult[], cold: boolean): void {
    if (results.length === 0) return;
    const t0 = performance.now();
    const now = this.pipe.clock();
    try {
      this.p.store.transaction(() => {
        // Cards stored here are provisional until settle() applies the channel-wide facts, in a
        // later transaction: a process killed in between leaves this mark, and the next start
        // settles every card (its folders look unchanged, so nothing else would).
        this.p.store.writeMeta('unsettled', true);
        for (const r of results) {
          this.storeFolder(r, cold, now);
          // Watched unless finished, once settled (a new watch looks at the folder once more).
          if (this.pipe.watches.active) this.watchDue.add(r.dir);
        }
      });
    } finally {
      this.storeMs += performance.now() - t0;
    }
  }

  /** Watches or stops watching the folders stored since the last call, as their settled cards say. */
  updateWatches(): void {
    const due = [...this.watchDue];
    this.watchDue.clear();
    if (this.pipe.watches.active) for (const d of due) this.pipe.updateWatch(d);
  }

  /**
   * One folder's rows, stored at `now` (this machine's clock: a file's first sighting): its
   * files, fingerprints and problems and, with a card, its holds, dependencies, runs and card.
   * `cold`: the first index, whose tables start empty.
   */
  private storeFolder(r: OrderPassResult, cold: boolean, now: number): void {
    const { store: s, facts: f, looks } = this.p;
    // A cold index starts from empty tables: a folder not stored yet has no rows to replace.
    const fresh = cold && !looks.knows(r.dir) && f.idIn(r.dir) === undefined;
    const old = fresh ? [] : s.filesIn(r.dir);
    if (this.pipe.live) this.pipe.metrics.noteFolder(old, r.files, now);
    for (const o of old) if (o.writer) f.touchWriter(o.writer);
    const self = r.files[0];
    if (self) {
      const sf = cyrb53(self.stat);
      const lf = listingFingerprint(r.files.map((x) => [x.path, x.stat] as const));
      looks.remember(r.dir, sf, lf);
      s.setDir(r.dir, sf, lf);
    } else {
      looks.forget(r.dir);
      s.deleteDir(r.dir);
      this.pipe.watches.unwatch(r.dir);
    }
    f.noteVariant(r.dir, r.files.length > 0);
    if (fresh) s.addFiles(r.files, now);
    else storeChangedFiles(s, old, r.files, now);
    for (const file of r.files) if (file.writer) f.touchWriter(file.writer);
    if (!fresh) s.deleteProblemsIn(r.dir);
    for (const p of r.problems) s.addProblem(r.dir, p);
    const prevId = fresh ? undefined : f.idIn(r.dir);
    if (prevId && (!r.card || r.card.order_id !== prevId)) {
      // The folder no longer holds that order (the facts forget it before its card goes).
      const prev = f.lookup(prevId);
      if (prev && prev.dir === r.dir) {
        f.forget(r.dir);
        s.deleteCard(prevId);
        s.deleteHolds(prevId);
        s.deleteHoldGaps(prevId);
        s.deleteDeps(prevId);
        f.noteChanged(prevId);
        f.touchDependents(prevId);
      }
    }
    if (!r.card) {
      // A folder shadowed by a case sibling holding its order keeps no claim on the id.
      f.dropShadow(r.dir);
      return;
    }
    const c = r.card;
    // Holds and dependencies are stored only with a card: an order not known has none.
    const known = !fresh && f.has(c.order_id);
    if (known) s.deleteHolds(c.order_id);
    for (const h of r.holds) s.addHold(c.order_id, h.hold, h.run_ms, h.retire);
    if (known) s.deleteDeps(c.order_id);
    for (const d of c.depends_on) s.addDep(c.order_id, d);
    const gaps = this.pipe.beatGaps;
    for (const b of r.beats) {
      // A folder this process never stored has no arrival it saw: no gap to look for.
      if (!fresh) gaps?.note(b);
      s.upsertRun(b);
    }
    // Stored provisionally; settle() applies the channel-wide facts and writes the final card.
    this.writeCard(c, r.dir, r.next_ms, fresh && !known);
    // Shown unverified until the checking pass confirms it (cold-pass.ts); a pass that checked
    // every signature (or found it remembered) clears the mark.
    if (r.deferred > 0) s.markUnverified(c.order_id, r.dir);
    else if (!fresh) s.clearUnverified(c.order_id);
    f.touchOrder(c.order_id);
    if (!known) f.touchDependents(c.order_id);
  }

  /**
   * Writes a card row with the local time (ms) it may change with no file changing (`next`);
   * records the change. `isNew`: the order is known not to be stored (a cold index's first
   * sight of it), so what was known of it is not looked up.
   */
  writeCard(card: Card, dir: string, next: number | null, isNew = false): void {
    const prev = isNew ? undefined : this.p.facts.lookup(card.order_id);
    const json = JSON.stringify(card);
    const fp = fingerprint(json);
    const agents = new Set<string>([...(card.holder ? [card.holder] : []), ...card.other_runs, ...card.late_results]);
    this.p.store.writeCard(card, {
      dir,
      agents: ` ${[...agents].join(' ')} `,
      flags: ` ${card.flags.join(' ')} `,
      search: [card.order_id, card.holder ?? '', card.project_id, card.reason ?? '', card.state, ...card.flags].join(' ').toLowerCase(),
      sortMs: laneSortMs(card),
      nextMs: next,
      json,
      fp,
      // The arrival the card's age counts from, as board-where.ts's REF reads it (the staleness
      // reference, else the holder's heartbeat, else the folder's newest file: the store's fallback).
      ageRefMs: card.since_ms !== undefined ? card.since_ms - this.pipe.opts.staleAfterMs : (card.heartbeat?.arrival_ms ?? null),
    });
    // Memory keeps the folders of orders not finished (and of none): the rest are the store's.
    this.p.looks.setLive(dir, card.lane !== 'done');
    if (this.p.facts.noteStored(card, dir, fp, prev) && this.pipe.watches.active) this.watchDue.add(dir);
  }
}

/**
 * A folder's file rows brought from `old` (as stored) to `files` (as just read), writing only
 * what differs: a row gone is deleted, a new or changed one written (first seen at `now` when
 * new, else when it was). A folder passed again with nothing changed, as when its card goes stale
 * with the clock, writes no file row: deleting and inserting them all again was about a quarter of
 * such a pass's time, with the WAL pages it dirtied.
 */
function storeChangedFiles(s: IndexStore, old: readonly StoredFileRow[], files: readonly FileRow[], now: number): void {
  const before = new Map(old.map((o) => [o.path, o]));
  for (const file of files) {
    const o = before.get(file.path);
    before.delete(file.path);
    if (!o || !sameFileRow(o, file)) s.addFile(file, o?.first_seen_ms ?? now);
  }
  for (const path of before.keys()) s.deleteFile(path);
}

/** Whether a stored row holds what a file row just read would store (its folder is the same by path). */
function sameFileRow(o: StoredFileRow, f: FileRow): boolean {
  return (
    o.stat === f.stat &&
    o.type === f.type &&
    o.arrival_ms === f.arrival_ms &&
    o.kind === f.kind &&
    o.status === f.status &&
    o.problem === f.problem &&
    o.writer === f.writer &&
    o.sig_key === f.sig_key &&
    o.sig_ok === f.sig_ok
  );
}
