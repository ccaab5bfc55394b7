/**
 * Operator actions as the page presents them (LEDGER.md §8): whether each is allowed on what the
 * operator sees (the same rules the server applies, from the card alone), the exact files each
 * will write, what the fleet will do with them, ledger chaining for bulk actions, and the words
 * of the server's refusals. Pure; unit-tested. The server checks everything again
 * (lib/actions/apply.ts): these checks only keep the page from offering what it would refuse.
 */
import type { Card, OrderState } from '@/lib/ledger/derive';
import { ackRefusal, ledgerPathOf, WORKING_STATES, type ActionKind, type ActionRequest } from '@/lib/ledger/actions';
import { sha256HexOfText } from '@/lib/ledger/json';
import { canonicalName } from '@/lib/ledger/names';

const TERMINAL: ReadonlySet<OrderState> = new Set<OrderState>(['done', 'accepted', 'closed']);

/** Words of each action (buttons, dialog titles, toasts). */
export const ACTION_TITLE: Record<ActionKind, string> = {
  requeue: 'Re-queue',
  retire: 'Retire',
  reopen: 'Reopen',
  ack: 'Acknowledge give-up',
};

// ---- when each action is offered ---------------------------------------------------------

/**
 * Whether re-queue belongs on this card at all (the menu shows it, enabled or not): the order
 * has a holder and is stale, given up, or held by a retired agent.
 */
export function requeueRelevant(card: Card): boolean {
  return card.holder !== null && (card.state === 'stale' || card.state === 'gave_up' || card.flags.includes('retired_holder'));
}

/**
 * LEDGER.md §8 re-queue, from the card (lib/ledger/actions.ts `requeueRefusal` needs the order's
 * folder; the card carries nearly all of it): the holder has a claim (an `offered` order's
 * assignee has none; the server checks the claim itself), the order is `stale` or `gave_up` or flagged
 * `retired_holder` (and not finished), and the holder's heartbeat is not fresh. Null when allowed.
 */
export function requeueCheck(card: Card): string | null {
  if (!card.holder || card.state === 'offered') return `${card.order_id} has no active claim to release (state ${card.state})`;
  if (card.holder_fresh === true) return `${card.holder}'s heartbeat on ${card.order_id} is fresh: a live run is never stolen from`;
  if (card.state === 'stale' || card.state === 'gave_up') return null;
  if (card.flags.includes('retired_holder') && !TERMINAL.has(card.state) && card.state !== 'awaiting_review') return null;
  return `${card.order_id} is ${card.state}: re-queue is for stale or given-up orders, or orders held by a retired agent`;
}

/** LEDGER.md §8 acknowledge: only a give-up. */
export const ackCheck = (card: Card): string | null => ackRefusal(card);

/** Whether reopen belongs on this order's page: it is done, accepted or closed. */
export const reopenRelevant = (card: Card): boolean => TERMINAL.has(card.state);

/**
 * LEDGER.md §8 reopen (lib/ledger/actions.ts `reopenRefusal`, with the dependents as the order
 * page lists them): terminal, and no order that depends on it is in a working state.
 */
export function reopenCheck(card: Card, dependents: readonly { readonly order_id: string; readonly state: OrderState }[]): string | null {
  if (!TERMINAL.has(card.state)) return `${card.order_id} is ${card.state}: only done, accepted or closed orders can be reopened`;
  if (!card.target) return `${card.order_id} names nothing to reopen`;
  const working = dependents.filter((d) => WORKING_STATES.has(d.state));
  if (working.length > 0) {
    return `${working.map((d) => `${d.order_id} (${d.state.replace('_', ' ')})`).join(', ')} depend${working.length === 1 ? 's' : ''} on ${card.order_id} and already consumed its result`;
  }
  return null;
}

/** LEDGER.md §8 retire: the agent is in the roster and not retired. */
export function retireCheck(agent: { readonly name: string; readonly retired: boolean }): string | null {
  return agent.retired ? `${agent.name} is already retired` : null;
}

// ---- the files each action writes (LEDGER.md §2, §4, §8) --------------------------------------

/** One file an action will write: the channel-relative path and what happens to it. */
export interface PlannedFile {
  readonly path: string;
  /** 'new': a new file; 'replace': rewrites the operator's own earlier file, if any; 'append': one line appended. */
  readonly how: 'new' | 'replace' | 'append';
  readonly what: string;
}

export type PlanInput =
  | { readonly action: 'requeue'; readonly orderId: string; readonly holder: string }
  | { readonly action: 'reopen'; readonly orderId: string; readonly target: string }
  | { readonly action: 'ack'; readonly orderId: string; readonly target: string }
  | { readonly action: 'retire'; readonly agent: string; readonly orders: readonly string[] };

/** Exactly the files an action will write, in the order the server writes them, the ledger line last. */
export function plannedFiles(input: PlanInput, operator: string): PlannedFile[] {
  const op = canonicalName(operator);
  const ledger: PlannedFile = { path: ledgerPathOf(op), how: 'append', what: `one signed line appended to ${op}'s ledger` };
  switch (input.action) {
    case 'requeue': {
      const h = canonicalName(input.holder);
      return [{ path: `tasks/${input.orderId}/release.${op}.${h}.json`, how: 'new', what: `release of ${h}'s claim (reason "requeued: <your note>")` }, ledger];
    }
    case 'reopen':
      return [{ path: `tasks/${input.orderId}/reopen.${op}.json`, how: 'replace', what: `reopen naming ${input.target}` }, ledger];
    case 'ack':
      return [{ path: `tasks/${input.orderId}/ack.${op}.json`, how: 'replace', what: `acknowledgement naming ${input.target}` }, ledger];
    case 'retire': {
      const a = canonicalName(input.agent);
      return [
        { path: `retirements/${a}.${op}.json`, how: 'new', what: `retirement of ${a}` },
        ...input.orders.map((id): PlannedFile => ({ path: `tasks/${id}/release.${op}.${a}.json`, how: 'new', what: `release of ${a}'s claim on ${id} (reason "retired")` })),
        ledger,
      ];
    }
  }
}

/** What the fleet will do with the files (LEDGER.md §8, last paragraph), in plain words. */
export function fleetEffect(input: PlanInput): string[] {
  switch (input.action) {
    case 'requeue':
      return [
        `Ferryman workers honour releases: ${input.orderId} returns to Open (or Offered, when it is assigned) and another worker may claim it.`,
        `Nothing is stopped: if ${input.holder}'s run is somehow still going, a result it writes later is flagged as a late result and not counted.`,
      ];
    case 'ack':
      return [
        `${input.orderId} is closed and moves to Done; the give-up stays in its history.`,
        'Acknowledging is a claimboard extension: only workers that follow claimboard’s LEDGER.md extensions act on it. Plain ferryman workers ignore the file, and the holder keeps its claim.',
      ];
    case 'reopen':
      return [
        `The terminal state ${input.orderId} is in (named by ${input.target}) no longer holds: the order leaves Done and its state is derived again without it.`,
        'Reopen is a claimboard extension: only workers that follow claimboard’s LEDGER.md extensions act on it. Plain ferryman workers ignore the file.',
      ];
    case 'retire':
      return [
        input.orders.length > 0
          ? `Ferryman workers honour the release${input.orders.length === 1 ? '' : 's'}: ${input.orders.join(', ')} return${input.orders.length === 1 ? 's' : ''} to Open (or Offered) and another worker may claim ${input.orders.length === 1 ? 'it' : 'them'}.`
          : `${input.agent} holds no order by an active claim without a result: no release is written.`,
        'The retirement itself is a claimboard extension: only workers that follow claimboard’s LEDGER.md extensions act on it. Nothing stops a machine still running as this identity.',
      ];
  }
}

/** What the fleet will do with a bulk re-queue or acknowledge of `n` orders. */
export function bulkFleetEffect(kind: 'requeue' | 'ack', n: number): string[] {
  const them = n === 1 ? 'it' : 'them';
  return kind === 'requeue'
    ? [
        `Ferryman workers honour releases: ${n === 1 ? 'the order returns' : `the ${n} orders return`} to Open (or Offered, when assigned) and another worker may claim ${them}.`,
        'Nothing is stopped: a result a released run writes later is flagged as a late result and not counted.',
      ]
    : [
        `${n === 1 ? 'The order is' : `The ${n} orders are`} closed and move${n === 1 ? 's' : ''} to Done; each give-up stays in its history.`,
        'Acknowledging is a claimboard extension: only workers that follow claimboard’s LEDGER.md extensions act on it. Plain ferryman workers ignore the files.',
      ];
}

// ---- bulk: chained ledger lines, results ---------------------------------------------------

/**
 * Builds a bulk batch (POST /api/actions/bulk): the ledger lines are chained, so action i is
 * signed with `prev` = SHA-256 of action i-1's `ledger_line`, the first with `firstPrev` (the
 * operator's ledger file as the server reported it just now).
 */
export function chainActions<T>(items: readonly T[], firstPrev: string, build: (item: T, ledgerPrev: string) => ActionRequest): ActionRequest[] {
  const out: ActionRequest[] = [];
  let prev = firstPrev;
  for (const it of items) {
    const a = build(it, prev);
    out.push(a);
    prev = sha256HexOfText(a.ledger_line);
  }
  return out;
}

/** Most orders one bulk request may carry (app/api/actions/bulk/route.ts). */
export const BULK_MAX = 500;

export interface BulkResult {
  readonly order_id: string | null;
  readonly status: number;
  readonly written?: readonly string[];
  readonly reason?: string;
}

/**
 * One bulk result: written; not applied because an earlier one broke the chain or the ledger
 * moved (sign again: retrying may succeed); or refused by a rule or a changed board.
 */
export function bulkOutcome(r: BulkResult): 'written' | 'not_applied' | 'refused' {
  if (r.status === 201) return 'written';
  if (r.status === 409 && /sign again/.test(r.reason ?? '')) return 'not_applied';
  return 'refused';
}

// ---- the server's refusals -------------------------------------------------------------

/** A refusal as the dialog shows it: the server's message verbatim, after a few plain words for 409s. */
export function refusalText(status: number, message: string): string {
  if (status === 409) return `the board changed: ${message}`;
  if (status === 429) return `slow down: ${message}`;
  return message;
}
