/**
 * The channel-wide facts of the index, in memory (no SQLite, no fs): per order what the
 * board's channel-wide facts need (state, lane, holder, dependencies), which folder holds it,
 * who depends on it, each writer's latest arrival here, the names ferry retire releases
 * retire; and what changed since the last settle. `settle` applies the facts (the stale reason
 * from the holder's latest arrival anywhere, dependencies: derive.ts withChannelFacts) to the
 * cards a change may affect, round after round until nothing changes.
 *
 * Arrivals are ms on this machine's clock (file ctimes, LEDGER.md §6).
 */
import { canonicalName } from '../ledger/names';
import { withChannelFacts, type Card, type Lane, type OrderState } from '../ledger/derive';
import type { CardInfoRow } from './store';

/** What the indexer keeps of one order (small: the board's channel-wide facts need it). */
export interface OrderInfo {
  readonly id: string;
  readonly dir: string;
  state: OrderState;
  lane: Lane;
  holder: string | null;
  deps: readonly string[];
  /** Fingerprint of the stored card JSON. */
  fp: number;
}

/** FNV-1a over a string, 32 bits, plus its length: a cheap fingerprint to notice that a card changed. */
export function fingerprint(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) + s.length * 4294967296;
}

/** One copy of each of the few distinct state, lane and agent names (a warm start loads 100,000 of each). */
const interned = new Map<string, string>();
export function intern<T extends string>(s: T): T {
  const hit = interned.get(s);
  if (hit !== undefined) return hit as T;
  if (interned.size < 10_000) interned.set(s, s);
  return s;
}

/** The shared empty dependency list. */
export const NO_DEPS: readonly string[] = [];

/**
 * Rounds of settle before it stops: each round re-applies the facts to the cards the previous
 * round changed (a dependency's state moving its dependents). A channel converges in a few
 * rounds; the bound only keeps a pathological input from spinning (settle then says so).
 */
export const MAX_SETTLE_ROUNDS = 50;

/** The stored cards settle reads and rewrites. */
export interface SettleCards {
  /** The card as stored now (JSON), its folder and when it may change with no file changing. */
  read(id: string): { readonly card: string; readonly order_dir: string; readonly next_ms: number | null } | undefined;
  /** Stores the card with the channel-wide facts applied (the writer calls {@link ChannelFacts.noteStored}). */
  write(card: Card, dir: string, nextMs: number | null): void;
}

/** How a settle ended: rounds run, and the orders still changing when it stopped (empty: it converged). */
export interface SettleOutcome {
  readonly rounds: number;
  readonly unsettled: readonly string[];
}

export class ChannelFacts {
  readonly orders = new Map<string, OrderInfo>();
  /** Which order each folder holds (a folder shadowed by a case sibling may still name the id it lost). */
  readonly dirToId = new Map<string, string>();
  /** Known folders whose names are not in canonical form (rare): their case siblings are passed with them. */
  readonly variantDirs = new Set<string>();
  /** Each writer's latest arrival here (ms, this machine's clock). */
  readonly lastArrival = new Map<string, number>();
  /** Names retired by a `ferry channel retire` release in some folder (cards' `retires`), as last settled. */
  ferryRetired = new Set<string>();
  private readonly dependents = new Map<string, Set<string>>();
  /** Writers whose latest arrival may have moved, orders whose facts must be re-applied, orders whose card changed. */
  private touchedWriters = new Set<string>();
  private touchedOrders = new Set<string>();
  private changedIds = new Set<string>();

  /**
   * Loads what the index remembers of every order (a start): its row and its dependencies. No
   * card is parsed unless its row has no fingerprint.
   */
  load(cards: Iterable<CardInfoRow>, deps: Iterable<{ readonly order_id: string; readonly dep: string }>): void {
    const depsOf = new Map<string, string[]>();
    for (const r of deps) {
      const l = depsOf.get(r.order_id);
      if (l) l.push(r.dep);
      else depsOf.set(r.order_id, [r.dep]);
    }
    for (const r of cards) {
      this.remember({
        id: r.order_id,
        dir: r.order_dir === r.order_id ? r.order_id : r.order_dir,
        state: intern(r.state),
        lane: intern(r.lane),
        holder: r.holder === null ? null : intern(r.holder),
        deps: depsOf.get(r.order_id) ?? NO_DEPS,
        fp: r.fp ?? fingerprint(r.card ?? ''),
      });
    }
  }

  /**
   * Remembers an order (replacing what was known of it). True when its folder's watch may have
   * to change: a new order, a folder moved, or the order entering or leaving the Done lane.
   */
  remember(info: OrderInfo): boolean {
    const prev = this.orders.get(info.id);
    if (prev) for (const d of prev.deps) this.dependents.get(d)?.delete(info.id);
    this.orders.set(info.id, info);
    this.dirToId.set(info.dir, info.id);
    for (const d of info.deps) {
      let set = this.dependents.get(d);
      if (!set) this.dependents.set(d, (set = new Set()));
      set.add(info.id);
    }
    return !prev || (prev.lane === 'done') !== (info.lane === 'done') || prev.dir !== info.dir;
  }

  /** Forgets the order `dir` holds (when it is that order's folder); returns the id the folder held, or null. */
  forget(dir: string): string | null {
    const id = this.dirToId.get(dir);
    if (!id) return null;
    this.dirToId.delete(dir);
    const prev = this.orders.get(id);
    if (prev && prev.dir === dir) {
      for (const d of prev.deps) this.dependents.get(d)?.delete(id);
      this.orders.delete(id);
    }
    return id;
  }

  /** The order a folder holds, when that folder is the order's. */
  orderIn(dir: string): OrderInfo | undefined {
    const id = this.dirToId.get(dir);
    const info = id === undefined ? undefined : this.orders.get(id);
    return info && info.dir === dir ? info : undefined;
  }

  /** Marks a writer whose latest arrival may have moved. */
  touchWriter(w: string): void {
    this.touchedWriters.add(w);
  }

  /** Marks an order whose facts must be re-applied. */
  touchOrder(id: string): void {
    this.touchedOrders.add(id);
  }

  /** Marks the orders that depend on `id` (its state, or whether it exists, changed). */
  touchDependents(id: string): void {
    for (const d of this.dependents.get(id) ?? []) this.touchedOrders.add(d);
  }

  /** Marks an order whose stored card changed or went away (the change feed). */
  noteChanged(id: string): void {
    this.changedIds.add(id);
  }

  /**
   * The memory side of storing a card (fingerprint `fp`): notes the change when the card
   * differs from the one known, remembers it, and marks its dependents when its state moved.
   * Returns what {@link remember} returns.
   */
  noteStored(card: Card, dir: string, fp: number): boolean {
    const prev = this.orders.get(card.order_id);
    const stateChanged = !prev || prev.state !== card.state;
    if (!prev || prev.fp !== fp) this.changedIds.add(card.order_id);
    const rewatch = this.remember({ id: card.order_id, dir, state: card.state, lane: card.lane, holder: card.holder, deps: card.depends_on, fp });
    if (stateChanged) this.touchDependents(card.order_id);
    return rewatch;
  }

  /** Every writer's latest arrival, replaced (a cold settle). Forgets the writers touched. */
  setLastArrivals(rows: readonly { writer: string; t: number }[]): void {
    this.lastArrival.clear();
    for (const r of rows) this.lastArrival.set(r.writer, r.t);
    this.touchedWriters.clear();
  }

  /**
   * Updates the latest arrival of each writer touched since the last settle from `latestOf`
   * (null: none stored any more); the stale orders a moved writer holds are marked: stale by
   * state, or in the Stale lane by a stopped run (run_lane; OrderInfo keeps no run_lane, so a
   * run-stale card that a flag put in Needs attention waits for its own folder's next pass).
   */
  updateTouchedWriters(latestOf: (writer: string) => number | null): void {
    for (const w of this.touchedWriters) {
      const t = latestOf(w);
      const prev = this.lastArrival.get(w);
      if (t === null) this.lastArrival.delete(w);
      else this.lastArrival.set(w, t);
      if (prev !== (t ?? undefined)) {
        for (const info of this.orders.values()) if (info.holder === w && (info.state === 'stale' || info.lane === 'stale')) this.touchedOrders.add(info.id);
      }
    }
    this.touchedWriters.clear();
  }

  /**
   * Applies the channel-wide facts at `nowMs` (this machine's clock) to every order (`all`) or
   * to the orders touched since the last settle, then to the orders those changes touch, for
   * at most MAX_SETTLE_ROUNDS rounds. A stale card whose reason may still turn from
   * heartbeat_lapsed to agent_silent gets that moment as its `next_ms`. `holdOf`: the reaper
   * holds' flag (derive.ts withChannelFacts).
   */
  settle(all: boolean, ctx: { readonly nowMs: number; readonly staleAfterMs: number; readonly holdOf?: (card: Card) => string | undefined }, cards: SettleCards): SettleOutcome {
    const facts = {
      nowMs: ctx.nowMs,
      staleAfterMs: ctx.staleAfterMs,
      // This machine's reaper holds (local-holds.ts), when the indexer reads them.
      ...(ctx.holdOf ? { holdOf: ctx.holdOf } : {}),
      lastArrivalOf: (a: string) => this.lastArrival.get(a),
      isOrder: (id: string) => this.orders.has(id),
      stateOf: (id: string) => this.orders.get(id)?.state,
    };
    const touched = this.takeTouchedOrders();
    let work = all ? [...this.orders.keys()] : [...touched];
    let rounds = 0;
    while (work.length > 0 && rounds < MAX_SETTLE_ROUNDS) {
      rounds++;
      for (const id of work) {
        const row = cards.read(id);
        if (!row) continue;
        const c = JSON.parse(row.card) as Card;
        const fixed = withChannelFacts(c, facts);
        let next = row.next_ms;
        if ((fixed.state === 'stale' || fixed.run_lane === 'stale') && fixed.reason === 'heartbeat_lapsed' && fixed.holder) {
          const t = (this.lastArrival.get(fixed.holder) ?? 0) + ctx.staleAfterMs;
          if (t > facts.nowMs && (next === null || t < next)) next = t;
        }
        if (fixed !== c || next !== row.next_ms) cards.write(fixed, row.order_dir, next);
      }
      work = [...this.takeTouchedOrders()];
    }
    return { rounds, unsettled: work };
  }

  /** The orders whose card changed since the last call (the change feed), forgotten here. */
  takeChanged(): Set<string> {
    const out = this.changedIds;
    this.changedIds = new Set();
    return out;
  }

  private takeTouchedOrders(): Set<string> {
    const out = this.touchedOrders;
    this.touchedOrders = new Set();
    return out;
  }

  /** How many orders each agent holds. */
  holdingCounts(): Map<string, number> {
    const holding = new Map<string, number>();
    for (const info of this.orders.values()) if (info.holder) holding.set(info.holder, (holding.get(info.holder) ?? 0) + 1);
    return holding;
  }

  /** The folders of the orders one of `names` holds, and of every open order (its workers changed with them). */
  dirsHeldByOrOpen(names: ReadonlySet<string>): Set<string> {
    const dirs = new Set<string>();
    for (const info of this.orders.values()) if (info.holder === null || names.has(info.holder)) dirs.add(info.dir);
    return dirs;
  }

  /** The folder of every known order. */
  orderDirs(): string[] {
    return [...this.orders.values()].map((info) => info.dir);
  }

  /**
   * `dirs` with every known folder whose name folds to the same id as one of them (LEDGER.md §2:
   * names compare case-insensitively), `listed(d)` saying whether a folder is known on disk.
   */
  withCaseSiblings(dirs: ReadonlySet<string>, listed: (dir: string) => boolean): Set<string> {
    const out = new Set(dirs);
    const keys = new Set<string>();
    for (const d of dirs) {
      const k = canonicalName(d);
      keys.add(k);
      if (k !== d && (listed(k) || this.dirToId.has(k))) out.add(k);
    }
    for (const v of this.variantDirs) {
      const k = canonicalName(v);
      if (!keys.has(k)) continue;
      out.add(v);
      if (listed(k) || this.dirToId.has(k)) out.add(k);
    }
    return out;
  }

  /** Notes whether a folder not named in canonical form is there (`present`) or gone. */
  noteVariant(dir: string, present: boolean): void {
    if (dir === canonicalName(dir)) return;
    if (present) this.variantDirs.add(dir);
    else this.variantDirs.delete(dir);
  }
}
