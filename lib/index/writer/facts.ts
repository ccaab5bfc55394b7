/**
 * The channel-wide facts of the index (no SQLite, no fs): per order what the board's
 * channel-wide facts need (state, lane, holder), which folder holds it, each writer's latest
 * arrival here, the names ferry retire releases retire; and what changed since the last settle.
 * `settle` applies the facts (the stale reason from the holder's latest arrival anywhere,
 * dependencies: derive.ts withChannelFacts) to the cards a change may affect, round after round
 * until nothing changes.
 *
 * Only the orders not finished (any lane but Done) are kept in memory: finished orders, most of
 * a channel's history, are read from the index when asked for (StoredOrders: a primary-key or
 * indexed lookup), so memory grows with the work in flight, not with history. Who
 * depends on an order is read from the stored dependencies, when a settle needs it.
 *
 * Arrivals are ms on this machine's clock (file ctimes).
 */
import { withLocalDeath } from './local-deaths';
import { canonicalName } from '../../ledger/names';
import { withChannelFacts, type Card, type Lane, type OrderState } from '../../ledger/derive';
import type { CardInfoRow } from '../store/store';

/** What the indexer knows of one order (small: the board's channel-wide facts need it). */
export interface OrderInfo {
  readonly id: string;
  readonly dir: string;
  readonly state: OrderState;
  readonly lane: Lane;
  readonly holder: string | null;
  /** Fingerprint of the stored card JSON. */
  readonly fp: number;
}

/**
 * The orders as the index stores them (every card, finished or not), read on demand for the
 * ones memory does not keep. The indexer's is SQL (store.ts); each call is a primary-key or
 * indexed lookup but `ids` and `orderDirs`, which a full settle and a re-derive of everything
 * read once.
 */
export interface StoredOrders {
  /** The stored order `id`, or undefined. */
  info(id: string): OrderInfo | undefined;
  /** The id of the order whose stored card's folder is `dir`, or undefined. */
  idIn(dir: string): string | undefined;
  /** The orders whose stored dependencies name `id`. */
  dependentsOf(id: string): readonly string[];
  /** Every stored order's id. */
  ids(): readonly string[];
  /** Every stored order's folder. */
  orderDirs(): readonly string[];
  /** The folders of the finished (Done lane) orders one of `names` holds or nobody holds. */
  doneDirsHeldByOrNone(names: ReadonlySet<string>): readonly string[];
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

/** What the facts keep of a stored card's row (its names interned; the card parsed only when the row has no fingerprint). */
export function orderInfoOf(r: CardInfoRow): OrderInfo {
  return {
    id: r.order_id,
    dir: r.order_dir === r.order_id ? r.order_id : r.order_dir,
    state: intern(r.state),
    lane: intern(r.lane),
    holder: r.holder === null ? null : intern(r.holder),
    fp: r.fp ?? fingerprint(r.card ?? ''),
  };
}

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


/** Whether an order is stale: by its state, or in the Stale lane by a stopped run (OrderInfo keeps no run_lane). */
const isStale = (info: OrderInfo) => info.state === 'stale' || info.lane === 'stale';

const count = (m: Map<string, number>, k: string, by: number) => {
  const n = (m.get(k) ?? 0) + by;
  if (n === 0) m.delete(k);
  else m.set(k, n);
};

export class ChannelFacts {
  /** The orders not finished (every lane but Done), by id: the rest is the store's. */
  private readonly live = new Map<string, OrderInfo>();
  /** Which live order each folder holds (a folder shadowed by a case sibling may still name the id it lost). */
  private readonly dirToId = new Map<string, string>();
  /** How many orders each holder holds, finished ones included (as stored cards name their holder): kept as orders are remembered and forgotten. */
  private readonly held = new Map<string, number>();
  /** The live orders each holder holds that are stale (by state, or in the Stale lane by a stopped run): what a move of its latest arrival re-settles. */
  private readonly staleHeld = new Map<string, Set<string>>();
  /** Known folders whose names are not in canonical form (rare): their case siblings are passed with them. */
  readonly variantDirs = new Set<string>();
  /** Each writer's latest arrival here (ms, this machine's clock). */
  readonly lastArrival = new Map<string, number>();
  /** Names retired by a `ferry channel retire` release in some folder (cards' `retires`), as last settled. */
  ferryRetired = new Set<string>();
  /** Writers whose latest arrival may have moved, orders whose facts must be re-applied, orders whose dependents must, orders whose card changed. */
  private touchedWriters = new Set<string>();
  private touchedOrders = new Set<string>();
  private dependentsDue = new Set<string>();
  private changedIds = new Set<string>();
  /**
   * A cold index is storing every order before one settle of all (`settle(true)` ends it): what
   * would be marked touched, changed or owing its dependents a look is not collected (three sets
   * of every order id at 1,000,000 orders), since that settle looks at every card anyway.
   */
  bulk = false;

  /** @param stored the orders as the index stores them (read for the finished ones) */
  constructor(private readonly stored: StoredOrders) {}

  /**
   * Loads what the index remembers (a start): the row of every order not finished, and how many
   * finished orders each holder holds. No card is parsed unless its row has no fingerprint.
   */
  load(live: Iterable<CardInfoRow>, doneHeld: Iterable<{ readonly holder: string; readonly n: number }>): void {
    for (const r of live) this.remember(orderInfoOf(r));
    for (const r of doneHeld) count(this.held, r.holder, r.n);
  }

  /** The order `id` (memory, else the store), or undefined. */
  lookup(id: string): OrderInfo | undefined {
    return this.live.get(id) ?? this.stored.info(id);
  }

  /** Whether `id` is an order of the channel (stored). */
  has(id: string): boolean {
    return this.lookup(id) !== undefined;
  }

  /** The id of the order a folder holds (a live order's shadowed case sibling may still name it), or undefined. */
  idIn(dir: string): string | undefined {
    return this.dirToId.get(dir) ?? this.stored.idIn(dir);
  }

  /** How many orders memory keeps (those not finished). */
  get liveCount(): number {
    return this.live.size;
  }

  /**
   * Remembers an order (replacing what was known of it, `prev`: memory's or the store's before
   * it was replaced): kept in memory unless it is finished. True when its folder's watch may
   * have to change: a new order, a folder moved, or the order entering or leaving the Done lane.
   */
  remember(info: OrderInfo, prev: OrderInfo | undefined = this.live.get(info.id)): boolean {
    if (prev) this.unheld(prev);
    if (info.holder) {
      count(this.held, info.holder, 1);
      if (isStale(info)) {
        let set = this.staleHeld.get(info.holder);
        if (!set) this.staleHeld.set(info.holder, (set = new Set()));
        set.add(info.id);
      }
    }
    if (info.lane === 'done') {
      this.live.delete(info.id);
      if (this.dirToId.get(info.dir) === info.id) this.dirToId.delete(info.dir);
    } else {
      this.live.set(info.id, info);
      this.dirToId.set(info.dir, info.id);
    }
    return !prev || (prev.lane === 'done') !== (info.lane === 'done') || prev.dir !== info.dir;
  }

  /** Takes an order as it was known out of the holders' counts. */
  private unheld(prev: OrderInfo): void {
    if (!prev.holder) return;
    count(this.held, prev.holder, -1);
    const set = this.staleHeld.get(prev.holder);
    if (set?.delete(prev.id) && set.size === 0) this.staleHeld.delete(prev.holder);
  }

  /**
   * Forgets the order `dir` holds (when it is that order's folder; call before its card is
   * deleted from the store); returns the id the folder held, or null.
   */
  forget(dir: string): string | null {
    const id = this.idIn(dir);
    if (!id) return null;
    this.dirToId.delete(dir);
    const prev = this.lookup(id);
    if (prev && prev.dir === dir) {
      this.live.delete(id);
      this.unheld(prev);
    }
    return id;
  }

  /** Drops a folder's claim on an order it no longer holds (a case sibling took it). */
  dropShadow(dir: string): void {
    const id = this.dirToId.get(dir);
    if (id !== undefined && this.live.get(id)?.dir !== dir) this.dirToId.delete(dir);
  }

  /** The order a folder holds, when that folder is the order's. */
  orderIn(dir: string): OrderInfo | undefined {
    const id = this.idIn(dir);
    const info = id === undefined ? undefined : this.lookup(id);
    return info && info.dir === dir ? info : undefined;
  }

  /** Marks a writer whose latest arrival may have moved. */
  touchWriter(w: string): void {
    this.touchedWriters.add(w);
  }

  /** Marks an order whose facts must be re-applied. */
  touchOrder(id: string): void {
    if (!this.bulk) this.touchedOrders.add(id);
  }

  /** Marks the orders that depend on `id` (its state, or whether it exists, changed): read from the store when the next settle round starts. */
  touchDependents(id: string): void {
    if (!this.bulk) this.dependentsDue.add(id);
  }

  /** Marks an order whose stored card changed or went away (the change feed). */
  noteChanged(id: string): void {
    if (!this.bulk) this.changedIds.add(id);
  }

  /**
   * The memory side of storing a card (fingerprint `fp`; `prev`: the order as known before the
   * card was stored, memory's or the store's): notes the change when the card differs from the
   * one known, remembers it, and marks its dependents when its state moved. Returns what
   * {@link remember} returns.
   */
  noteStored(card: Card, dir: string, fp: number, prev: OrderInfo | undefined): boolean {
    const stateChanged = !prev || prev.state !== card.state;
    if ((!prev || prev.fp !== fp) && !this.bulk) this.changedIds.add(card.order_id);
    const rewatch = this.remember({ id: card.order_id, dir, state: card.state, lane: card.lane, holder: card.holder, fp }, prev);
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
   * Stale orders are never finished: memory counts them all, by holder.
   */
  updateTouchedWriters(latestOf: (writer: string) => number | null): void {
    for (const w of this.touchedWriters) {
      const t = latestOf(w);
      const prev = this.lastArrival.get(w);
      if (t === null) this.lastArrival.delete(w);
      else this.lastArrival.set(w, t);
      if (prev !== (t ?? undefined)) for (const id of this.staleHeld.get(w) ?? []) this.touchedOrders.add(id);
    }
    this.touchedWriters.clear();
  }

  /**
   * Applies the channel-wide facts at `nowMs` (this machine's clock) to every stored order
   * (`all`) or to the orders touched since the last settle, then to the orders those changes
   * touch, for at most MAX_SETTLE_ROUNDS rounds. A stale card whose reason may still turn from
   * heartbeat_lapsed to agent_silent gets that moment as its `next_ms`. `holdOf`: the reaper
   * holds' flag (derive.ts withChannelFacts).
   */
  settle(
    all: boolean,
    ctx: { readonly nowMs: number; readonly staleAfterMs: number; readonly holdOf?: (card: Card) => string | undefined; readonly deadOf?: (card: Card) => boolean },
    cards: SettleCards,
  ): SettleOutcome {
    const facts = {
      nowMs: ctx.nowMs,
      staleAfterMs: ctx.staleAfterMs,
      // This machine's reaper holds (local-holds.ts), when the indexer reads them.
      ...(ctx.holdOf ? { holdOf: ctx.holdOf } : {}),
      lastArrivalOf: (a: string) => this.lastArrival.get(a),
      isOrder: (id: string) => this.has(id),
      stateOf: (id: string) => this.lookup(id)?.state,
    };
    if (all) {
      // Every card is looked at: what was touched before needs no second look.
      this.touchedOrders = new Set();
      this.dependentsDue = new Set();
      this.bulk = false;
    }
    let work = all ? this.stored.ids() : [...this.takeTouchedOrders()];
    let rounds = 0;
    while (work.length > 0 && rounds < MAX_SETTLE_ROUNDS) {
      rounds++;
      for (const id of work) {
        const row = cards.read(id);
        if (!row) continue;
        const c = JSON.parse(row.card) as Card;
        // A local agent's run whose process is gone here leaves Running at once (local-deaths.ts).
        const fixed = ctx.deadOf ? withLocalDeath(withChannelFacts(c, facts), ctx.deadOf) : withChannelFacts(c, facts);
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

  /** The orders touched since the last call, with the stored dependents of those marked so. */
  private takeTouchedOrders(): Set<string> {
    const out = this.touchedOrders;
    for (const id of this.dependentsDue) for (const d of this.stored.dependentsOf(id)) out.add(d);
    this.touchedOrders = new Set();
    this.dependentsDue = new Set();
    return out;
  }

  /** How many orders each agent holds (finished ones included, as stored cards name their holder). */
  holdingCounts(): Map<string, number> {
    return new Map(this.held);
  }

  /** The folders of the orders one of `names` holds, and of every order nobody holds (an open order's workers changed with them). */
  dirsHeldByOrOpen(names: ReadonlySet<string>): Set<string> {
    const dirs = new Set(this.stored.doneDirsHeldByOrNone(names));
    for (const info of this.live.values()) if (info.holder === null || names.has(info.holder)) dirs.add(info.dir);
    return dirs;
  }

  /** The folder of every stored order. */
  orderDirs(): readonly string[] {
    return this.stored.orderDirs();
  }

  /**
   * `dirs` with every known folder whose name folds to the same id as one of them (docs/channel-format.md:
   * names compare case-insensitively), `listed(d)` saying whether a folder is known on disk.
   */
  withCaseSiblings(dirs: ReadonlySet<string>, listed: (dir: string) => boolean): Set<string> {
    const out = new Set(dirs);
    const keys = new Set<string>();
    const known = (k: string) => listed(k) || this.idIn(k) !== undefined;
    for (const d of dirs) {
      const k = canonicalName(d);
      keys.add(k);
      if (k !== d && known(k)) out.add(k);
    }
    for (const v of this.variantDirs) {
      const k = canonicalName(v);
      if (!keys.has(k)) continue;
      out.add(v);
      if (known(k)) out.add(k);
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
