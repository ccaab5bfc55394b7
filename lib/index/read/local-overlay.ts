import 'server-only';
/**
 * This machine's certainty on the board and order answers: for a card whose holder is
 * an agent local to the server's machine, the verdict on its heartbeat's pid (`local`: dead,
 * alive, reused, unknown, with the sentence) and the Stale reason's detail (`stale_detail`).
 *
 * Applied to the answers after the index computed them, because a verdict is this machine's
 * /proc at the moment asked, not the channel's: on a machine with no local agent the answers are
 * not touched at all (the same bytes). The reaper's holds (`dead_run_held`) are not here: they
 * move cards between lanes, so the indexer folds them in (local-holds.ts) and the counts, pages
 * and filters see them. One clock: this machine's (heartbeat arrivals, process start times).
 */
import type { Statement } from 'better-sqlite3';
import type { DB } from '../db';
import type { BoardCard, BoardResponse, LanePage } from '../types';
import type { Card } from '../../ledger/derive';
import { staleDetailOf, type Liveness, type ProcessFacts } from '../../ledger/liveness';
import { holderRunExpected, localAgentsOf, localLivenessOf, type LocalAgents } from '../../local/liveness';
import { defaultStateDir, firstArrivalOf, readReaperState } from '../../local/reaper-state';
import { settings } from '../../config';
import { BoundedMemo } from '../../util/bounded-memo';

/** The local configuration an overlay works from. */
export interface LocalOverlayConfig {
  readonly local: LocalAgents;
  /** The reaper's state directory (its first arrivals of runs). */
  readonly stateDir: string;
  /** The channel root (names the reaper's state files), or null: no reaper state is read. */
  readonly channel: string | null;
  /** Reads a pid's facts (default: this machine's /proc). */
  readonly proc?: (pid: number) => ProcessFacts;
  /** How long a verdict is reused, ms (default 1000: each verdict reads /proc). */
  readonly reuseMs?: number;
}

/** Adds this machine's facts to the board and order answers; see the header. */
export class LocalOverlay {
  private readonly verdicts = new Map<string, { readonly at: number; readonly l: Liveness | null }>();
  private readonly firstRuns = new WeakMap<DB, Statement>();
  private readonly reuseMs: number;

  constructor(private readonly cfg: LocalOverlayConfig) {
    this.reuseMs = cfg.reuseMs ?? 1000;
  }

  /** Whether anything could change: a local agent. */
  active(): boolean {
    return this.cfg.local.engines.size > 0;
  }

  /** The local agents' names (canonical). */
  agents(): string[] {
    return [...this.cfg.local.engines.keys()];
  }

  /** Whether `card`'s run is known gone here: its process dead, or its pid now another process's. */
  isDead(db: DB, card: Card, nowMs: number): boolean {
    const v = this.verdictOf(db, card, nowMs)?.verdict;
    return v === 'dead' || v === 'reused';
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
    if (!card.holder || !hb || !this.cfg.local.engines.has(card.holder) || !holderRunExpected(card)) return null;
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

  /** One card with this machine's facts: `local` and `stale_detail` (the same card when its holder is not local). */
  card(db: DB, card: BoardCard, nowMs: number): BoardCard {
    const l = this.verdictOf(db, card, nowMs);
    if (!l) return card;
    const detail = card.state === 'stale' || card.run_lane === 'stale' ? staleDetailOf(l.verdict) : null;
    return { ...card, local: { verdict: l.verdict, pid: l.pid, text: l.text }, ...(detail ? { stale_detail: detail } : {}) };
  }

  /** A board answer with every card overlaid (lanes and counts as the index gave them). */
  board(db: DB, b: BoardResponse, nowMs: number): BoardResponse {
    if (!this.active()) return b;
    return { ...b, lanes: b.lanes.map((p) => ({ ...p, cards: p.cards.map((c) => this.card(db, c, nowMs)) })) };
  }

  /** One lane's next page with every card overlaid. */
  lanePage(db: DB, p: LanePage, nowMs: number): LanePage {
    if (!this.active()) return p;
    return { ...p, cards: p.cards.map((c) => this.card(db, c, nowMs)) };
  }

  /** An order answer (orderJson's text) with its card overlaid; the same text when nothing changes. */
  orderJson(db: DB, body: string, nowMs: number): string {
    if (!this.active()) return body;
    const o = JSON.parse(body) as { card: BoardCard };
    const card = this.card(db, o.card, nowMs);
    return card === o.card ? body : JSON.stringify({ ...o, card });
  }
}

/** The overlays made, by configuration and channel: a hub's requests take turns between its channels, each keeping its own. */
const overlays = new BoundedMemo<string, LocalOverlay>(256); // more than a serve has channels: the settings changed (tests)

/**
 * The web server's overlay, from the settings `claimboard serve` passes (CLAIMBOARD_LOCAL_AGENTS,
 * CLAIMBOARD_FERRYMAN_WORKSPACES, CLAIMBOARD_FERRYMAN_STATE, CLAIMBOARD_REAPER_STATE) and the
 * served `channel` root (null: none recorded yet); one per distinct configuration and channel,
 * made once (making one reads the agent.toml files and the ferryman state's keys). Throws Error
 * on a bad local agent or agent.toml (serve checks the same at start and exits 2, so a served
 * board never meets it).
 */
export function serverOverlay(channel: string | null): LocalOverlay {
  const localAgents = settings.localAgents();
  const workspaces = settings.ferrymanWorkspaces();
  const ferrymanState = settings.ferrymanState();
  const stateDir = settings.reaperState() ?? defaultStateDir();
  const key = JSON.stringify([localAgents, workspaces, ferrymanState, stateDir, channel]);
  return overlays.get(key, () => {
    const local = localAgentsOf({ localAgents, workspaces, ...(ferrymanState ? { ferrymanState } : {}) });
    return new LocalOverlay({ local, stateDir, channel });
  });
}
