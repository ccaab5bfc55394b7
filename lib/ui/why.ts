/**
 * A card in words: why the order is where it is (the design "What good looks like in the
 * browser"), built only from the card and this machine's clock. Pure; unit-tested.
 *
 * Every time here is a local instant (arrival on this machine); writer clocks
 * appear only as "its clock said ..." beside an arrival, never subtracted from ours.
 */
import type { AttentionFlag, Card } from '@/lib/ledger/derive';
import { words } from '@/lib/ledger/words';
import { ago, formatDuration, writerShort } from '@/lib/ui/time';

export interface WhyContext {
  /** This machine's clock now (server `now_ms` advanced by elapsed browser time), ms. */
  readonly nowMs: number;
  /** `stale_after` of the server, ms. */
  readonly staleAfterMs: number;
  /** Last arrival here of any file an agent wrote (from GET /api/agents), when known. */
  readonly lastSeenMs?: (agent: string) => number | null | undefined;
}

/** "a", "a and b", "a, b and c". */
export const listWords = words;

/** The local arrival a stale card's staleness was measured from (`since = ref + stale_after`). */
function staleReference(card: Card, ctx: WhyContext): number | null {
  if (card.since_ms !== undefined) return card.since_ms - ctx.staleAfterMs;
  return card.heartbeat?.arrival_ms ?? null;
}

/** Flags whose reason (the card's `alerts`) says to whom ferry keeps offering an offered order. */
const OFFER_SAYING: ReadonlySet<AttentionFlag> = new Set<AttentionFlag>(['retired_holder', 'released_assignee', 'unknown_assignee', 'stop_not_holding']);

/** The sentence of the card's state, or null when a flag already says it all. `stale_detail`: this machine's pid check (the board's cards carry it for local agents). */
export function stateSentence(card: Card & { readonly stale_detail?: 'dead_local' | 'alive_local' }, ctx: WhyContext): string | null {
  const h = card.holder ?? 'nobody';
  const rev = card.latest_revision;
  switch (card.state) {
    case 'stale': {
      const ref = staleReference(card, ctx);
      switch (card.reason) {
        case 'heartbeat_lapsed': {
          const at = card.heartbeat?.arrival_ms ?? ref;
          if (card.stale_detail === 'dead_local' && at !== null) return `${h}'s run died on this machine: its process is gone (last heartbeat arrived ${ago(at, ctx.nowMs)})`;
          return at === null
            ? `${h}'s heartbeat stopped while its other runs continue`
            : `${h}'s heartbeat stopped ${ago(at, ctx.nowMs)} while its other runs continue`;
        }
        case 'agent_silent': {
          const known = card.holder !== null ? ctx.lastSeenMs?.(card.holder) : undefined;
          const seen = known ?? ref;
          const silent = seen === null || seen === undefined ? `nothing from ${h}` : `nothing from ${h} for ${formatDuration(ctx.nowMs - seen)}`;
          // On the agent's own machine the pid was checked: the cause is known, not guessed.
          const detail = card.stale_detail;
          if (detail === 'dead_local') return `${silent}: its run's process died on this machine`;
          if (detail === 'alive_local') return `${silent}, though its run's process is alive here`;
          return `${silent}: its machine, its sync or the agent is down`;
        }
        case 'no_heartbeat':
          return ref === null
            ? `claimed by ${h}; no heartbeat was ever written`
            : `claimed by ${h} ${ago(ref, ctx.nowMs)}; no heartbeat was ever written`;
        case undefined:
        default:
          return card.reason ? `stale: ${card.reason}` : `${h}'s run looks stopped`;
      }
    }
    case 'gave_up':
      return `${h} gave up: ${card.reason?.trim() || 'no reason given'}`;
    case 'claimed':
      // A local agent's run whose process is gone here: dead for certain, whatever its heartbeat's age.
      if (card.stale_detail === 'dead_local' && card.heartbeat) return `${h}'s run died on this machine: its process is gone (last heartbeat arrived ${ago(card.heartbeat.arrival_ms, ctx.nowMs)})`;
      return card.heartbeat
        ? `${h} is running it; last heartbeat arrived ${ago(card.heartbeat.arrival_ms, ctx.nowMs)}`
        : `claimed by ${h}; no heartbeat yet`;
    case 'changes_requested': {
      const sent = rev === null ? 'changes requested' : `changes requested on revision ${rev}`;
      const next = rev === null ? 'a new revision' : `revision ${rev + 1}`;
      // ferry's worker runs a sent-back revision without claiming again: only its heartbeat (the
      // card's heartbeat line) shows that run.
      if (card.run_lane === 'running') return `${sent}: ${h} is running ${next}`;
      if (card.run_lane === 'stale') return `${sent}: ${h}'s run of ${next} stopped writing`;
      return `${sent}: waits for ${h} to write ${next} (ferry offers it to ${h} alone, at its next pass); no heartbeat shows a run yet`;
    }
    case 'awaiting_review':
      return rev === null ? 'a result awaits review' : `revision ${rev} awaits review`;
    case 'done':
      return rev === null ? 'done' : `done: result at revision ${rev}`;
    case 'accepted':
      return rev === null ? 'accepted' : `accepted at revision ${rev}`;
    case 'closed':
      return `closed: an operator acknowledged ${h}'s give-up`;
    case 'open':
      return 'open: nobody has claimed it';
    case 'offered':
      // The derivation's words of these flags already say to whom ferry keeps offering it.
      if (card.flags.includes('released_assignee') || (card.alerts ?? []).some((a) => OFFER_SAYING.has(a.flag))) return null;
      return `offered to ${card.assigned_to ?? h}, who has not claimed it`;
    case 'blocked': {
      const waiting = card.depends_on.filter((d) => !card.missing_dependencies.includes(d));
      if (waiting.length === 0) return null;
      return `waiting for ${listWords(waiting)}`;
    }
  }
}

/**
 * The sentence of one attention flag: the derivation's own words, which a card carries for each of
 * its flags (its `alerts`: lib/ledger/derive.ts and the reaper's holds make the flags from them);
 * null for `gave_up`, which the state sentence says.
 */
export function flagSentence(card: Card, flag: AttentionFlag): string | null {
  if (flag === 'gave_up') return null;
  return card.alerts.find((a) => a.flag === flag)?.text ?? null;
}

/**
 * Why the card is where it is, as sentences, most important first: a give-up first, then the
 * flags (they put it in Needs attention), then the state.
 */
export function whyLines(card: Card, ctx: WhyContext): string[] {
  const state = stateSentence(card, ctx);
  const flags = card.flags.map((f) => flagSentence(card, f)).filter((s): s is string => s !== null);
  const lines = card.state === 'gave_up' ? [state, ...flags] : [...flags, state];
  return lines.filter((s): s is string => s !== null && s !== '');
}

/** {@link whyLines} joined into one sentence. */
export function why(card: Card, ctx: WhyContext): string {
  return whyLines(card, ctx).join('; ');
}

/**
 * The holder's heartbeat with both clocks side by side, e.g.
 * "last heartbeat arrived 3 min ago (its clock said 09:06 UTC)"; null without one.
 */
export function heartbeatNote(card: Card, nowMs: number): string | null {
  const hb = card.heartbeat;
  if (!hb) return null;
  return `last heartbeat arrived ${ago(hb.arrival_ms, nowMs)} (its clock said ${writerShort(hb.at)})`;
}

/** Whether the card carries the advisory stale note. */
export function isAdvisory(card: Card): boolean {
  return card.state === 'stale';
}

/**
 * The stale note (card, order page, the Stale lane's header). Going stale itself releases nothing;
 * only a signed act does (a person's, or this machine's reaper when it is on: docs/reaper.md), so
 * the note does not say "nothing is released" where a reaper may release.
 */
export const ADVISORY_NOTE = 'advisory: going stale releases nothing by itself';

/** Flags worth a badge beside the state badge: `gave_up` is the state itself, so not twice. */
export function shownFlags(card: Card): readonly AttentionFlag[] {
  return card.state === 'gave_up' ? card.flags.filter((f) => f !== 'gave_up') : card.flags;
}
