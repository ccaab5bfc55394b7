/**
 * What pages someone, read off the board as the index stores it: an order in
 * Needs attention (one item per attention flag), an order in Stale (one item, its stale reason),
 * and a channel problem that means someone may be forging or breaking trust (a forged record, a
 * key change, a broken ledger). Each item has a key (item and reason: a new reason for the same
 * order is a new item) and a group (one message per group: an order in one lane, or one problem).
 *
 * The reasons in words are the board's own (components/board/why.ts: the card's `alerts` words,
 * the state sentence of a stale card), so an alert never says something the board does not.
 * Pure: the caller passes this machine's clock.
 */
import type { AttentionFlag, Card } from '../ledger/derive';
import type { Problem, ProblemCode } from '../ledger/channel';
import { flagSentence, stateSentence } from '../ui/why';
import { FLAG_LABEL, LANE_TITLE, PROBLEM_LABEL, STATE_LABEL } from '../ui/labels';

/** Why an item pages: the lane an order entered, or a channel problem. */
export type AlertKind = 'attention' | 'stale' | 'problem';

/** The `event` of a payload: an item appeared, or (`resolved`) left its lane / went away. */
export type AlertEvent = AlertKind | 'resolved';

/** One thing that pages, as seen now. */
export interface AlertItem {
  /** Item and reason, e.g. `attention:a-17:gave_up`, `stale:a-17:agent_silent`, `problem:key_changed:agents/fang.json`. */
  readonly key: string;
  /** What one message covers: `order:<id>:<lane>` or the problem's key. */
  readonly grp: string;
  readonly kind: AlertKind;
  readonly order_id: string | null;
  /** The problem's file (problems only). */
  readonly path: string | null;
  /** The reason as a code: the flag, the stale reason, or the problem code. */
  readonly reason: string;
}

/**
 * Which problem codes page: a record whose signature does not verify or whose signer the roster
 * does not hold or may not sign it (forged), a roster key that differs from the pinned one, a
 * ledger chain that breaks. The others (unreadable, misnamed, conflict copies...) are on the
 * problems page, and an order's bad file already flags its card `bad_record`.
 */
export const PAGING_PROBLEMS: Record<ProblemCode, boolean> = {
  symlink: false,
  too_large: false,
  sync_conflict: false,
  invalid: false,
  name_mismatch: false,
  unsigned: false,
  unknown_signer: true,
  invalid_signature: true,
  unauthorized_signer: true,
  key_changed: true,
  ledger_broken: true,
};

/** The group of an order in a lane. */
export const orderGroup = (orderId: string, kind: 'attention' | 'stale'): string => `order:${orderId}:${kind}`;

/** The items of one card: one per flag in Needs attention, one in Stale, none elsewhere. */
export function itemsOfCard(card: Card): AlertItem[] {
  const id = card.order_id;
  switch (card.lane) {
    case 'attention':
      return card.flags.map((flag) => ({ key: `attention:${id}:${flag}`, grp: orderGroup(id, 'attention'), kind: 'attention', order_id: id, path: null, reason: flag }));
    case 'stale': {
      const reason = card.reason ?? 'stale';
      return [{ key: `stale:${id}:${reason}`, grp: orderGroup(id, 'stale'), kind: 'stale', order_id: id, path: null, reason }];
    }
    case 'running':
    case 'review':
    case 'queue':
    case 'done':
      return [];
  }
}

/** The item of one problem row, or null when its code does not page (PAGING_PROBLEMS). */
export function itemOfProblem(p: Pick<Problem, 'path' | 'problem'>): AlertItem | null {
  if (!PAGING_PROBLEMS[p.problem]) return null;
  const key = `problem:${p.problem}:${p.path}`;
  return { key, grp: key, kind: 'problem', order_id: null, path: p.path, reason: p.problem };
}

/** This machine's clock and the server's stale_after, for the board's sentences. */
export interface WordsContext {
  /** This machine's clock now, ms. */
  readonly nowMs: number;
  /** stale_after, ms. */
  readonly staleAfterMs: number;
}

const isFlag = (s: string): s is AttentionFlag => Object.hasOwn(FLAG_LABEL, s);

/**
 * Why a card pages, in the board's words: for Needs attention the sentence of each of `reasons`
 * (flags; a give-up's is the state sentence, as on the card), for Stale the state sentence.
 */
export function cardWords(card: Card, kind: 'attention' | 'stale', reasons: readonly string[], ctx: WordsContext): string {
  if (kind === 'stale') return stateSentence(card, ctx) ?? `stale: ${card.reason ?? 'its run stopped writing'}`;
  const lines = reasons.map((r) => {
    if (!isFlag(r)) return r;
    const s = r === 'gave_up' ? stateSentence(card, ctx) : flagSentence(card, r);
    return s ?? FLAG_LABEL[r];
  });
  return lines.join('; ');
}

/** A problem in words: the problems page's label, the file (and line), and the detail. */
export function problemWords(p: Pick<Problem, 'path' | 'problem' | 'detail' | 'line'>): string {
  return `${PROBLEM_LABEL[p.problem]}: ${p.path}${p.line !== undefined && p.line !== null ? ` line ${p.line}` : ''}${p.detail ? ` (${p.detail})` : ''}`;
}

/** Why an order's alert is resolved: where it is now (`card`), or that it is gone (null). */
export function resolvedOrderWords(kind: 'attention' | 'stale', card: Card | null): string {
  const left = kind === 'attention' ? 'no longer needs attention' : 'no longer stale';
  return card ? `${left}: now in ${LANE_TITLE[card.lane]} (${STATE_LABEL[card.state]})` : `${left}: the order is gone from the channel`;
}

/** Why a problem's alert is resolved. */
export function resolvedProblemWords(code: string, path: string): string {
  const label = Object.hasOwn(PROBLEM_LABEL, code) ? PROBLEM_LABEL[code as ProblemCode] : code;
  return `no longer a problem: ${path} (${label})`;
}
