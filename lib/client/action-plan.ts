/**
 * Operator actions as the page presents them: whether each is allowed on what the
 * operator sees (the same rules the server applies, from the card alone), the exact files each
 * will write, what the fleet will do with them, ledger chaining for bulk actions, and the words
 * of the server's refusals. Pure; unit-tested. The server checks everything again
 * (lib/actions/apply.ts): these checks only keep the page from offering what it would refuse.
 */
import type { Card, OrderState } from '@/lib/ledger/derive';
import { TERMINAL_STATES } from '@/lib/ledger/card';
import { ackRefusal, ackTargetOf, ledgerPathOf, WORKING_STATES, type ActionKind, type ActionRequest } from '@/lib/ledger/actions';
import { sha256HexOfText } from '@/lib/ledger/canonical';
import { parseDecisionTarget } from '@/lib/ledger/targets';
import { canonicalName } from '@/lib/ledger/names';
import { words } from '@/lib/ledger/words';
import { codeOfStatus, type RefusalReason } from '@/lib/errors';
import { CHANNEL_FILE } from '@/lib/ledger/channel-binding';

/** Words of each action (buttons, dialog titles, toasts). */
export const ACTION_TITLE: Record<ActionKind, string> = {
  requeue: 'Re-queue',
  retire: 'Retire',
  reopen: 'Reopen',
  ack: 'Acknowledge give-up',
  supersede: 'Supersede with a new order',
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
 * docs/channel-format.md re-queue, from the card (lib/ledger/actions.ts `requeueRefusal` needs the order's
 * folder; the card carries nearly all of it): the holder has a claim (an `offered` order's
 * assignee has none; the server checks the claim itself), the order is `stale` or `gave_up` or flagged
 * `retired_holder` (and not finished), and the holder's heartbeat is not fresh. Null when allowed.
 */
export function requeueCheck(card: Card): string | null {
  if (!card.holder || card.state === 'offered') return `${card.order_id} has no active claim to release (state ${card.state})`;
  if (card.holder_fresh === true) return `${card.holder}'s heartbeat on ${card.order_id} is fresh: a live run is never stolen from`;
  if (card.state === 'stale' || card.state === 'gave_up') return null;
  if (card.flags.includes('retired_holder') && !TERMINAL_STATES.has(card.state) && card.state !== 'awaiting_review') return null;
  return `${card.order_id} is ${card.state}: re-queue is for stale or given-up orders, or orders held by a retired agent`;
}

/** docs/channel-format.md acknowledge: a give-up, or (claimboard's extension) a late result not yet acknowledged. */
export const ackCheck = (card: Card): string | null => ackRefusal(card);

/** What an ack of this card acknowledges, in words for its button and dialog. */
export function ackWhat(card: Card): string {
  const late = card.flags.includes('late_result') ? (card.late_results.length > 1 ? 'the late results' : 'the late result') : null;
  if (card.state === 'gave_up') return late ? `the give-up and ${late}` : 'the give-up';
  return late ?? 'nothing';
}

/** Whether a late target reads the holder's own result at that revision too (ferry counts the holder's). */
function lateTwice(lateTarget: string | undefined): boolean {
  const t = lateTarget ? parseDecisionTarget(lateTarget) : null;
  return t?.kind === 'late' && t.twice;
}

/** `operator`'s ack of this card as the page plans it (plannedFiles, fleetEffect), or null when there is nothing to acknowledge. */
export function ackPlan(card: Card, operator: string): PlanInput | null {
  const target = ackTargetOf(card, operator);
  if (target === null) return null;
  const giveup = card.state === 'gave_up';
  return card.flags.includes('late_result')
    ? { action: 'ack', orderId: card.order_id, target, giveup, late: { agents: card.late_results, holder: card.holder, twice: lateTwice(card.late_target) } }
    : { action: 'ack', orderId: card.order_id, target, giveup };
}

/** Whether reopen belongs on this order's page: it is done, accepted or closed. */
export const reopenRelevant = (card: Card): boolean => TERMINAL_STATES.has(card.state);

/**
 * docs/channel-format.md reopen (lib/ledger/actions.ts `reopenRefusal`, with the dependents as the order
 * page lists them): terminal, and no order that depends on it is in a working state.
 */
export function reopenCheck(card: Card, dependents: readonly { readonly order_id: string; readonly state: OrderState }[]): string | null {
  if (!TERMINAL_STATES.has(card.state)) return `${card.order_id} is ${card.state}: only done, accepted or closed orders can be reopened`;
  if (!card.target) return `${card.order_id} names nothing to reopen`;
  const working = dependents.filter((d) => WORKING_STATES.has(d.state));
  if (working.length > 0) {
    return `${working.map((d) => `${d.order_id} (${d.state.replace('_', ' ')})`).join(', ')} depend${working.length === 1 ? 's' : ''} on ${card.order_id} and already consumed its result`;
  }
  return null;
}

/** docs/channel-format.md retire: the agent is in the roster and not retired. */
export function retireCheck(agent: { readonly name: string; readonly retired: boolean }): string | null {
  return agent.retired ? `${agent.name} is already retired` : null;
}

/** Order ids a line names before it counts the rest. */
const NAMED = 5;
const named = (ids: readonly string[]) => (ids.length > NAMED ? `${ids.slice(0, NAMED).join(', ')} and ${ids.length - NAMED} more` : ids.join(', '));

/**
 * How an agent's retire plan (the orders a retirement releases) moved from `before`
 * to `now`, in words for the retire dialog: the count now, then what it took on and what it let
 * go, each naming at most five ids. An agent holding hundreds is told in one line, not hundreds of ids.
 */
export function planChange(before: readonly string[], now: readonly string[]): string {
  const was = new Set(before);
  const is = new Set(now);
  const added = [...is].filter((id) => !was.has(id)).sort();
  const gone = [...was].filter((id) => !is.has(id)).sort();
  const parts = [...(added.length ? [`${added.length} more (${named(added)})`] : []), ...(gone.length ? [`${gone.length} let go (${named(gone)})`] : [])];
  const holds = is.size === 0 ? 'it now holds nothing to release' : `it now holds ${is.size === 1 ? '1 order' : `${is.size} orders`} to release`;
  return parts.length ? `${holds}: ${parts.join(', ')}` : holds;
}

// ---- the files each action writes --------------------------------------

/** One file an action will write: the channel-relative path and what happens to it. */
export interface PlannedFile {
  readonly path: string;
  /** 'new': a new file; 'replace': rewrites the operator's own earlier file, if any; 'append': one line appended. */
  readonly how: 'new' | 'replace' | 'append';
  readonly what: string;
}

export type PlanInput =
  | { readonly action: 'requeue'; readonly orderId: string; readonly holder: string; readonly assignedTo?: string | null }
  | { readonly action: 'supersede'; readonly orderId: string; readonly newId: string; readonly assignTo: string | null }
  | {
      readonly action: 'reopen';
      readonly orderId: string;
      /** What the record names: the new decision after the operator's earlier ones. */
      readonly target: string;
      /** The new decision alone (the card's target), for the words; `target` when absent. */
      readonly decides?: string;
    }
  | {
      readonly action: 'ack';
      readonly orderId: string;
      readonly target: string;
      /** Whether it acknowledges a give-up (the order is closed). */
      readonly giveup: boolean;
      /** Set when it acknowledges late results: whose, who holds the order (null: ferry reads it open), and whether the holder's own result is there too. */
      readonly late?: { readonly agents: readonly string[]; readonly holder: string | null; readonly twice?: boolean };
    }
  | { readonly action: 'retire'; readonly agent: string; readonly orders: readonly string[] };

/** Exactly the files an action will write, in the order the server writes them, the ledger line last. */
export function plannedFiles(input: PlanInput, operator: string, opts: { readonly channelFile?: boolean } = {}): PlannedFile[] {
  const files = actFiles(input, operator);
  return opts.channelFile ? [CHANNEL_FILE_PLAN, ...files] : files;
}

/**
 * The channel's id, written by the first act on a folder that has none (the server says so:
 * GET /api/operators/:name `channel_new`), before the act's own files.
 */
export const CHANNEL_FILE_PLAN: PlannedFile = { path: CHANNEL_FILE, how: 'new', what: "the channel's id, named once by the first act on this folder (every act is signed for it)" };

function actFiles(input: PlanInput, operator: string): PlannedFile[] {
  const op = canonicalName(operator);
  const ledger: PlannedFile = { path: ledgerPathOf(op), how: 'append', what: `one signed line appended to ${op}'s ledger` };
  switch (input.action) {
    case 'requeue': {
      const h = canonicalName(input.holder);
      return [{ path: `tasks/${input.orderId}/release.${op}.${h}.json`, how: 'new', what: `release of ${h}'s claim (reason "requeued: <your note>")` }, ledger];
    }
    case 'supersede':
      return [
        { path: `tasks/${input.newId}/order.json`, how: 'new', what: `a new order ${input.newId} with ${input.orderId}'s task, issued by ${op}${input.assignTo ? `, addressed to ${canonicalName(input.assignTo)}` : ', open to any worker'}` },
        { path: `tasks/${input.orderId}/supersede.${op}.json`, how: 'new', what: `supersede record naming ${input.newId}` },
        ledger,
      ];
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

/** What the fleet will do with the files, in plain words. */
export function fleetEffect(input: PlanInput): string[] {
  switch (input.action) {
    case 'requeue':
      return input.assignedTo
        ? [
            `ferry honours the release, but ${input.orderId} is addressed to ${input.assignedTo}: ferry keeps offering it to ${input.assignedTo} and to nobody else, and ${input.assignedTo}'s next start runs it again.`,
            `To give the work to another agent, supersede it with a new order instead.`,
          ]
        : [
            `ferry honours the release: ${input.orderId} is Open again and the next worker that polls claims it.`,
            `Nothing is stopped: if ${input.holder}'s run is somehow still going, ferry counts a result it writes later (claimboard flags it as a late result).`,
          ];
    case 'supersede':
      return [
        `ferry runs ${input.newId} like any order${input.assignTo ? `, offered to ${input.assignTo} alone` : ', offered to every worker'}.`,
        `ferry cannot withdraw an order: it keeps reading ${input.orderId} as before; claimboard stops alarming on it and links the two. Orders that depend on ${input.orderId} still wait for it.`,
      ];
    case 'ack': {
      const lines: string[] = [];
      if (input.giveup) lines.push(`${input.orderId} is closed and, unless another flag keeps it in Needs attention, moves to Done; the give-up stays in its history.`);
      if (input.late) {
        const n = input.late.agents.length;
        const who = `${n > 1 ? 'results' : 'result'} by ${words(input.late.agents)}`;
        lines.push(
          input.giveup
            ? `The late ${who} ${n > 1 ? 'are' : 'is'} no longer an alarm either.`
            : `The late ${who} ${n > 1 ? 'are' : 'is'} no longer an alarm; the ${n > 1 ? 'results stay' : 'result stays'} in its history. Unless another flag keeps it there, ${input.orderId} leaves Needs attention for the lane of its state.`,
          input.late.holder === null
            ? `Board only: ferry does not read acknowledgements. It reads ${input.orderId} as open and hands it out again.`
            : `Board only: ferry does not read acknowledgements; which result it counts does not change.`,
          `The ack names the order as it is now: if ${input.late.holder === null ? 'a worker claims it' : input.late.twice ? 'it changes hands' : `it changes hands, ${input.late.holder}'s own result arrives`} or another late result arrives, the alarm returns.`,
        );
      } else {
        lines.push('Board only: ferry does not read give-ups or acknowledgements; in ferry the holder keeps its claim.');
      }
      return lines;
    }
    case 'reopen':
      return [
        `The terminal state ${input.orderId} is in (named by ${input.decides ?? input.target}) no longer holds on this board: the order leaves Done and its state is derived again without it.`,
        'ferry has no reopen: its workers keep reading the order as finished. To have the fleet do the work again, supersede it with a new order.',
      ];
    case 'retire':
      return [
        input.orders.length > 0
          ? `ferry honours each release as listed above, order by order.`
          : `${input.agent} holds no order without a result: no release is written.`,
        'ferry does not read the retirement record itself (it is claimboard’s); nothing stops a machine still running as this identity.',
      ];
  }
}

/**
 * What the fleet will do with a bulk re-queue or acknowledge of `n` orders: of the acknowledged
 * ones, `late` have late results and `giveups` gave up (an order may be both).
 */
export function bulkFleetEffect(kind: 'requeue' | 'ack', n: number, late = 0, giveups = n - late): string[] {
  const them = n === 1 ? 'it' : 'them';
  return kind === 'requeue'
    ? [
        `ferry honours releases: ${n === 1 ? 'the order is' : `the ${n} orders are`} Open again and the next worker claims ${them}; an order addressed to an agent stays offered to that agent (supersede it to move it).`,
        'Nothing is stopped: ferry counts a result a released run writes later (claimboard flags it as a late result).',
      ]
    : [
        ...(giveups > 0 ? [`${giveups === 1 ? 'The order that gave up is' : `The ${giveups} orders that gave up are`} closed and move${giveups === 1 ? 's' : ''} to Done; each give-up stays in its history.`] : []),
        ...(late > 0 ? [`${late === 1 ? 'The late result is' : `The ${late} orders' late results are`} no longer an alarm: without another flag, ${late === 1 ? 'its order leaves' : 'each leaves'} Needs attention for the lane of its state; ferry hands an open one out again.`] : []),
        'Board only: ferry does not read give-ups or acknowledgements.',
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
  readonly reason_code?: RefusalReason;
}

/**
 * One bulk result: written; not applied because an earlier one broke the chain or the ledger
 * moved (`chain_broken`, `ledger_moved`: sign again, retrying may succeed); or refused by a rule
 * or a changed board (anything else).
 */
export function bulkOutcome(r: BulkResult): 'written' | 'not_applied' | 'refused' {
  if (r.status === 201) return 'written';
  return r.reason_code !== undefined && SIGN_AGAIN.has(r.reason_code) ? 'not_applied' : 'refused';
}

/** The reasons a bulk result was not applied for: signed again, it may be. */
const SIGN_AGAIN: ReadonlySet<RefusalReason> = new Set<RefusalReason>(['chain_broken', 'ledger_moved']);

/** A result not applied, in words: the server's own words when it says why the chain stopped (`chain_broken`), else its reason after "not applied". */
export function notAppliedText(r: Pick<BulkResult, 'reason' | 'reason_code'>): string {
  return r.reason_code === 'chain_broken' && r.reason ? r.reason : `not applied: ${r.reason ?? 'sign again'}`;
}

// ---- the server's refusals -------------------------------------------------------------

/** A refusal as the dialog shows it: the server's message verbatim, after a few plain words for a conflict (409) or too many actions (429). */
export function refusalText(status: number, message: string): string {
  const code = codeOfStatus(status);
  if (code === 'conflict') return `the board changed: ${message}`;
  if (code === 'too_many_requests') return `slow down: ${message}`;
  return message;
}

/** What a refusal is, for a dialog to decide by: its status and reason code (lib/client/actions.ts ActionOutcome). */
export interface RefusalCodes {
  readonly status: number;
  readonly reason_code: RefusalReason | null;
}

/** Whether the server found the agent to retire alive (`looks_alive`): the dialog then asks for both confirmations. */
export const saysAlive = (r: RefusalCodes): boolean => r.reason_code === 'looks_alive';

/** Whether the server says a supersede's new order id is taken (`id_taken`): the dialog never proposes it again. */
export const saysIdTaken = (r: RefusalCodes): boolean => r.reason_code === 'id_taken';

/** Whether a refusal offers to reload the card: the board moved on (a conflict), but not over a taken id (choosing another id is the way on). */
export const offersReload = (r: RefusalCodes): boolean => codeOfStatus(r.status) === 'conflict' && !saysIdTaken(r);

/** Why an action on a card still marked unverified waits (Card.unverified; the server refuses it too). */
export const UNVERIFIED_REASON = 'its card is not verified yet: the index is still checking the signatures behind it';
