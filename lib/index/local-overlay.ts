import 'server-only';
/**
 * This machine's certainty on the board and order answers (issue 16): for a card whose holder is
 * an agent local to the server's machine, the verdict on its heartbeat's pid (`local`: dead,
 * alive, reused, unknown, with the sentence) and the Stale reason's detail (`stale_detail`); and
 * the reaper's holds raised into Needs attention as `dead_run_held`.
 *
 * Applied to the answers after the index computed them, because both come from this machine
 * (its /proc, the reaper's state file), not from the channel: the index stays the same on every
 * machine, and on a machine with no local agent and no hold the answers are not touched at all
 * (the same bytes). One clock: this machine's (heartbeat arrivals, process start times).
 */
import type { Statement } from 'better-sqlite3';
import type { DB } from './db';
import type { BoardCard, BoardResponse, LanePage } from './types';
import type { Card } from '../ledger/derive';
import { holdApplies, staleDetailOf, type Liveness, type ProcessFacts } from '../ledger/liveness';
import { localAgentsOf, localLivenessOf, type LocalAgents } from '../local/liveness';
import { defaultStateDir, firstArrivalOf, readHolds, readReaperState, type ReaperHold } from '../local/reaper-state';
import { settings } from '../config';

/** The local configuration an overlay works from. */
export interface LocalOverlayConfig {
  readonly local: LocalAgents;
  /** The reaper's state directory (its holds, its first arrivals). */
  readonly stateDir: string;
  /** The channel root (names the reaper's state files), or null: no reaper state is read. */
  readonly channel: string | null;
  /** Reads a pid's facts (default: this machine's /proc). */
  readonly proc?: (pid: number) => ProcessFacts;
  /** How long a verdict or the holds read are reused, ms (default 1000: each verdict reads /proc). */
  readonly reuseMs?: number;
}

/** The hold flag's reason on the card. */
export function holdText(hold: ReaperHold): string {
  return `dead run held for review: ${hold.text}, since ${hold.held_at}`;
}

/** Adds this machine's facts to the board and order answers; see the header. */
export class LocalOverlay {
  private readonly verdicts = new Map<string, { readonly at: number; readonly l: Liveness | null }>();
  private holdsRead: { readonly at: number; readonly holds: readonly ReaperHold[] } | null = null;
  private readonly firstRuns = new WeakMap<DB, Statement>();
  private readonly reuseMs: number;

  constructor(private readonly cfg: LocalOverlayConfig) {
    this.reuseMs = cfg.reuseMs ?? 1000;
  }

  /** Whether anything could change: a local agent, or a hold recorded here. */
  active(nowMs: number): boolean {
    return this.cfg.local.engines.size > 0 || this.holds(nowMs).length > 0;
  }

  /** The reaper's holds on this channel (read at most once per reuseMs). */
  private holds(nowMs: number): readonly ReaperHold[] {
    if (this.cfg.channel === null) return [];
    if (this.holdsRead && nowMs - this.holdsRead.at < this.reuseMs && nowMs >= this.holdsRead.at) return this.holdsRead.holds;
    const holds = readHolds(this.cfg.stateDir, this.cfg.channel);
    this.holdsRead = { at: nowMs, holds };
    return holds;
  }

  /** The earliest arrival of (order, agent, run) the index saw, ms (this machine's clock), or undefined. */
  private indexFirstArrival(db: DB, orderId: string, agent: string, run: string): number | undefined {
    let s = this.firstRuns.get(db);
    if (!s) this.firstRuns.set(db, (s = db.prepare('SELECT MIN(first_arrival_ms) AS f FROM runs WHERE order_id = ? AND agent = ? AND run = ?')));
    const row = s.get(orderId, agent, run) as { f: number | null } | undefined;
    return row?.f ?? undefined;
  }

  /** The verdict on `card`'s heartbeat, reused for reuseMs per (order, run, pid, arrival). */
  private verdictOf(db: DB, card: Card, nowMs: number): Liveness | null {
    const hb = card.heartbeat;
    if (!card.holder || !hb || !this.cfg.local.engines.has(card.holder)) return null;
    const key = `${card.order_id}\u0000${card.holder}\u0000${hb.run}\u0000${hb.pid}\u0000${hb.arrival_ms}`;
    const hit = this.verdicts.get(key);
    if (hit && nowMs >= hit.at && nowMs - hit.at < this.reuseMs) return hit.l;
    const holder = card.holder;
    const l = localLivenessOf(card, this.cfg.local, {
      firstArrival: (orderId, run) => {
        const fromIndex = this.indexFirstArrival(db, orderId, holder, run);
        const remembered = this.cfg.channel === null ? undefined : firstArrivalOf(readReaperState(this.cfg.stateDir, this.cfg.channel, holder).runs, orderId, run, hb.arrival_ms);
        const all = [fromIndex, remembered].filter((x): x is number => x !== undefined);
        return all.length > 0 ? Math.min(...all) : undefined;
      },
      ...(this.cfg.proc ? { proc: this.cfg.proc } : {}),
    });
    if (this.verdicts.size > 10_000) this.verdicts.clear(); // bounded: old (pid, arrival) pairs are never asked again
    this.verdicts.set(key, { at: nowMs, l });
    return l;
  }

  /** One card with this machine's facts: `local` and `stale_detail`, and a standing hold as `dead_run_held`. */
  card(db: DB, card: BoardCard, nowMs: number): BoardCard {
    let out: BoardCard = card;
    const l = this.verdictOf(db, card, nowMs);
    if (l) {
      const detail = card.state === 'stale' || card.run_lane === 'stale' ? staleDetailOf(l.verdict) : null;
      out = { ...out, local: { verdict: l.verdict, pid: l.pid, text: l.text }, ...(detail ? { stale_detail: detail } : {}) };
    }
    // A hold stands while the order is still that run's (holdApplies); it ends by itself after.
    const hold = this.holds(nowMs).find((h) => holdApplies(h, card));
    if (hold && !out.flags.includes('dead_run_held')) {
      // Last in the flag order (lib/ledger/words.ts FLAG_ORDER), so appended.
      out = { ...out, flags: [...out.flags, 'dead_run_held'], alerts: [...out.alerts, { flag: 'dead_run_held', text: holdText(hold) }], lane: 'attention' };
    }
    return out;
  }

  /**
   * A board answer with every card overlaid. A held card moves from its lane to the front of
   * Needs attention, each lane's count following (on this page only: a held card beyond a lane's
   * first page is not found here, and a `flag:dead_run_held` query matches nothing, since the
   * index never stores this machine's holds).
   */
  board(db: DB, b: BoardResponse, nowMs: number): BoardResponse {
    if (!this.active(nowMs)) return b;
    const moved: BoardCard[] = [];
    const lanes = b.lanes.map((p) => {
      const cards = p.cards.map((c) => this.card(db, c, nowMs));
      if (p.lane === 'attention') return { ...p, cards };
      const stay = cards.filter((c) => c.lane === p.lane);
      moved.push(...cards.filter((c) => !stay.includes(c)));
      return { ...p, cards: stay, count: p.count - (cards.length - stay.length) };
    });
    if (moved.length === 0) return { ...b, lanes };
    return { ...b, lanes: lanes.map((p) => (p.lane === 'attention' ? { ...p, cards: [...moved, ...p.cards], count: p.count + moved.length } : p)) };
  }

  /** One lane's next page with every card overlaid; a held card is left out of any lane but Needs attention (the board's first page shows it there). */
  lanePage(db: DB, p: LanePage, nowMs: number): LanePage {
    if (!this.active(nowMs)) return p;
    const cards = p.cards.map((c) => this.card(db, c, nowMs));
    if (p.lane === 'attention') return { ...p, cards };
    const stay = cards.filter((c) => c.lane === p.lane);
    return { ...p, cards: stay, count: p.count - (cards.length - stay.length) };
  }

  /** An order answer (orderJson's text) with its card overlaid; the same text when nothing changes. */
  orderJson(db: DB, body: string, nowMs: number): string {
    if (!this.active(nowMs)) return body;
    const o = JSON.parse(body) as { card: BoardCard };
    const card = this.card(db, o.card, nowMs);
    return card === o.card ? body : JSON.stringify({ ...o, card });
  }
}

let current: { readonly key: string; readonly overlay: LocalOverlay } | null = null;

/**
 * The web server's overlay, from the settings `claimboard serve` passes (CLAIMBOARD_LOCAL_AGENTS,
 * CLAIMBOARD_FERRYMAN_WORKSPACES, CLAIMBOARD_FERRYMAN_STATE, CLAIMBOARD_REAPER_STATE,
 * CLAIMBOARD_CHANNEL); one per distinct configuration. Throws Error on a bad local agent or
 * agent.toml (serve checks the same at start and exits 2, so a served board never meets it).
 */
export function serverOverlay(): LocalOverlay {
  const localAgents = settings.localAgents();
  const workspaces = settings.ferrymanWorkspaces();
  const ferrymanState = settings.ferrymanState();
  const stateDir = settings.reaperState() ?? defaultStateDir();
  const channel = settings.channel() ?? null;
  const key = JSON.stringify([localAgents, workspaces, ferrymanState, stateDir, channel]);
  if (current?.key !== key) {
    const local = localAgentsOf({ localAgents, workspaces, ...(ferrymanState ? { ferrymanState } : {}) });
    current = { key, overlay: new LocalOverlay({ local, stateDir, channel }) };
  }
  return current.overlay;
}
