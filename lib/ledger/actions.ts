/**
 * Operator actions: what each may write, when it is allowed, and how the
 * browser (and the CLI) builds the signed records. Pure: used by the browser to build and
 * sign, and by the server (lib/actions) to check against a fresh derivation.
 */
import { z } from 'zod';
import type { ChannelState, OrderView } from './channel';
import type { OrderFolder } from './card';
import { holderOf, TERMINAL_STATES, type Card, type OrderState } from './derive';
import type { OrderRecord } from './records';
import { canonicalName, isSafeComponent } from './names';
import { joinTargets } from './targets';
import { signFields as signFieldsAs, signLedgerLineAfter, type SignedKind, type Signer } from './sign';
import type { ErrorCode, RefusalReason } from '../errors';

/**
 * The operator actions, plus supersede: a new signed order that does an old one's
 * work, the act that moves work in ferry where a release cannot (docs/channel-format.md).
 */
export type ActionKind = 'requeue' | 'retire' | 'reopen' | 'ack' | 'supersede';

/** The record each action signs (a retire's releases aside). */
export const RECORD_KIND: Readonly<Record<ActionKind, 'release' | 'retirement' | 'reopen' | 'ack' | 'supersede'>> = {
  requeue: 'release',
  retire: 'retirement',
  reopen: 'reopen',
  ack: 'ack',
  supersede: 'supersede',
};

/** The ledger line kind each action appends. */
export const LEDGER_KIND: Record<ActionKind, 'release' | 'retire' | 'reopen' | 'ack' | 'supersede'> = {
  requeue: 'release',
  retire: 'retire',
  reopen: 'reopen',
  ack: 'ack',
  supersede: 'supersede',
};

/**
 * What the real ferry fleet does after an action, in words for the dialog and the CLI
 * (docs/channel-format.md): ferry honours releases, but an addressed order stays its assignee's,
 * and ferry reads none of claimboard's reopen, ack, give-up or retirement records.
 */
export function ferryConsequence(action: ActionKind, card: Card | null): string {
  const a = card?.assigned_to ?? null;
  switch (action) {
    case 'requeue':
      return a !== null
        ? `ferry honours the release, but ${card?.order_id} is addressed to ${a}: ferry keeps offering it to ${a} (and to nobody else), whose next start runs it again. To give it to another agent, supersede it with a new order.`
        : `ferry honours the release: ${card?.order_id ?? 'the order'} is Open again and the next worker that polls claims it.`;
    case 'retire':
      return 'ferry honours the releases: the orders it held by claim are Open again. Orders addressed to it stay offered to it in ferry (an addressed order belongs to its assignee): supersede each with a new order. ferry does not read the retirement record itself; it is claimboard\'s.';
    case 'reopen':
      return `ferry has no reopen: its workers keep reading ${card?.order_id ?? 'the order'} as ${card?.ferry.state ?? 'finished'}; only this board shows it reopened. To have the fleet do the work again, supersede it with a new order.`;
    case 'ack':
      return card !== null && card.state !== 'gave_up' && card.flags.includes('late_result')
        ? card.holder === null
          ? `board only: ferry does not read acknowledgements; it reads ${card.order_id} as open and hands it out again.`
          : `board only: ferry does not read acknowledgements; it counts the result as it did before.`
        : 'board only: ferry does not read give-ups or their acknowledgements; the holder keeps its claim in ferry.';
    case 'supersede':
      return `ferry runs the new order like any other${card?.assigned_to ? '' : ''}; it keeps reading ${card?.order_id ?? 'the old order'} as before (ferry cannot withdraw an order), and orders that depend on ${card?.order_id ?? 'it'} still wait for it.`;
  }
}

/** States in which an order's result has been consumed by work in progress. */
export const WORKING_STATES: ReadonlySet<OrderState> = new Set<OrderState>(['claimed', 'stale', 'changes_requested', 'awaiting_review', 'gave_up']);

/** What the operator saw of one order when deciding. */
export interface OrderExpect {
  readonly order_id: string;
  readonly state: OrderState;
  readonly holder: string | null;
  readonly target: string | null;
}

/** What the operator saw when retiring an agent: the orders the retirement will release. */
export interface RetireExpect {
  readonly agent: string;
  /** Order ids it holds by an active claim with no result, as shown in the dialog. */
  readonly orders: readonly string[];
  /** How many times the operator confirmed "it looks alive" (2 needed when a heartbeat is fresh). */
  readonly confirm_alive: number;
}

/** The `expect` of an action request. */
export interface Expect {
  readonly order?: OrderExpect;
  readonly retire?: RetireExpect;
  /** hex SHA-256 of the last line of the operator's ledger file as the operator's page read it ('' for none). */
  readonly ledger_prev: string;
}

/** POST /api/actions body. */
export interface ActionRequest {
  readonly action: ActionKind;
  /** The decision record: release (requeue), retirement (retire), reopen, ack. */
  readonly record: Record<string, unknown>;
  /** Retire only: one release per order it holds by an active claim with no result. */
  readonly releases?: readonly Record<string, unknown>[];
  /** Supersede only: the new signed order (its order.json). */
  readonly order?: Record<string, unknown>;
  /** The signed ledger line (JSON text, no newline). */
  readonly ledger_line: string;
  readonly expect: Expect;
}

const Name = z.string().min(1).max(200).refine((s) => isSafeComponent(s), 'not a safe name');
const Obj = z.record(z.string(), z.unknown());
/** zod schema of an ActionRequest (the trust boundary of POST /api/actions). */
export const ActionRequestSchema = z.object({
  action: z.enum(['requeue', 'retire', 'reopen', 'ack', 'supersede']),
  record: Obj,
  releases: z.array(Obj).max(10_000).optional(),
  order: Obj.optional(),
  ledger_line: z.string().min(2).max(64 * 1024),
  expect: z.object({
    order: z
      .object({
        order_id: Name,
        state: z.enum(['open', 'blocked', 'offered', 'claimed', 'stale', 'gave_up', 'closed', 'changes_requested', 'awaiting_review', 'accepted', 'done']),
        holder: Name.nullable(),
        target: z.string().max(200).nullable(),
      })
      .optional(),
    retire: z.object({ agent: Name, orders: z.array(Name).max(10_000), confirm_alive: z.number().int().min(0).max(10) }).optional(),
    ledger_prev: z.string().regex(/^([0-9a-f]{64})?$/),
  }),
});

/**
 * Why an action is refused: `bad_request` the request or its records are malformed or do not say
 * what the operator saw, `forbidden` not an operator or a bad signature, `conflict` the folder no
 * longer matches what the operator saw, `refused` a rule of docs/channel-format.md refuses it. Only the HTTP
 * layer turns a code into a status (lib/errors.ts HTTP_STATUS).
 */
export type RefusalCode = Extract<ErrorCode, 'bad_request' | 'forbidden' | 'conflict' | 'refused'>;

/** A refusal with its code, a reason an operator can act on, and that reason's code for a client to decide by. */
export interface Refusal {
  readonly code: RefusalCode;
  readonly reason: string;
  readonly reason_code: RefusalReason;
  /** The current card, for conflicts. */
  readonly card?: Card;
}

/** Whether the holder of an order has an active (not released) claim on it. */
export function holderClaimActive(view: OrderView): boolean {
  const h = view.card.holder;
  if (!h) return false;
  if (view.folder.releases.some((r) => r.record.released === h)) return false;
  return view.folder.claims.some((c) => c.record.agent === h);
}

/**
 * docs/channel-format.md re-queue: allowed when the holder's claim is active and the order is `stale`
 * or `gave_up`, or flagged `retired_holder` (and not finished: releasing the holder of a
 * finished order would reopen it, which is what reopen is for). Refused while the holder's
 * heartbeat is fresh. Returns null when allowed, else the reason.
 */
export function requeueRefusal(view: OrderView): string | null {
  const c = view.card;
  if (!c.holder || !holderClaimActive(view)) return `${c.order_id} has no active claim to release (state ${c.state})`;
  if (c.holder_fresh === true) {
    return `${c.holder}'s heartbeat on ${c.order_id} is fresh: a live run is never stolen from`;
  }
  const retired = c.flags.includes('retired_holder');
  if (c.state === 'stale' || c.state === 'gave_up') return null;
  if (retired && !TERMINAL_STATES.has(c.state) && c.state !== 'awaiting_review') return null;
  return `${c.order_id} is ${c.state}: re-queue is for stale or given-up orders, or orders held by a retired agent`;
}

/**
 * docs/channel-format.md retire, as `ferry channel retire` does it: the orders `agent` holds by an active
 * claim with no result of its own, and the orders addressed to it with no result at all (ferry's
 * holder() is the assignee), each of which gets a release (reason `retired`) unless it already
 * has one. Sorted by order id.
 */
export function retirePlan(state: ChannelState, agent: string): string[] {
  const a = canonicalName(agent);
  const out: string[] = [];
  for (const [id, view] of state.views) if (retireReleases(view.folder, a)) out.push(id);
  return out.sort();
}

/**
 * retirePlan's rule for one order: a retirement of `agent` (a canonical name) releases it when
 * no release names the agent yet, and the agent claimed it and delivered no result, or it is
 * addressed to the agent and has no result at all. The folder's records only; no clock.
 */
export function retireReleases(f: Pick<OrderFolder, 'order' | 'claims' | 'results' | 'releases'>, agent: string): boolean {
  if (f.releases.some((r) => r.record.released === agent)) return false;
  const byClaim = f.claims.some((c) => c.record.agent === agent) && !f.results.some((r) => r.record.agent === agent);
  const byAddress = f.order.record.assigned_to === agent && f.results.length === 0;
  return byClaim || byAddress;
}

/** Why an order is in a retirement's plan: the agent holds it, lost a race for it, gave up on it, or it is addressed to the agent. */
export type RetireWhy = 'holds' | 'lost' | 'gave_up' | 'addressed';

/** One release a retirement writes, and what ferry then does with the order, in words. */
export interface RetireStep {
  readonly order_id: string;
  readonly why: RetireWhy;
  /** What ferry does with the order once the release is written (docs/channel-format.md). */
  readonly effect: string;
}

/**
 * The retirement's plan ({@link retirePlan}, the same orders in the same order) with each
 * order's consequence in ferry: an addressed order stays offered to the agent; a claim that lost
 * (ferry reads another holder, or the order finished) changes nothing; the order ferry reads as
 * the agent's (a run, or a give-up, acknowledged or not: ferry reads no give-up) passes to the
 * next claim ferry counts, or is Open to the fleet again.
 */
export function retireSteps(state: ChannelState, agent: string): RetireStep[] {
  const a = canonicalName(agent);
  return retirePlan(state, a).map((id): RetireStep => {
    const view = state.views.get(id);
    if (!view) return { order_id: id, why: 'holds', effect: 'its claim is released' };
    const { card, folder } = view;
    if (folder.order.record.assigned_to === a) {
      return { order_id: id, why: 'addressed', effect: `addressed to ${a}: ferry keeps offering it to ${a} alone after the release; supersede it to give the work to another agent` };
    }
    if (card.ferry.holder !== a) {
      const reads = card.ferry.state === 'done' || card.ferry.state === 'accepted' ? `finished (${card.ferry.state})` : card.ferry.holder ? `held by ${card.ferry.holder}` : card.ferry.state;
      return { order_id: id, why: 'lost', effect: `${a}'s claim lost: ferry reads it ${reads}; the release changes nothing` };
    }
    // The claim ferry counts once a's is released (ferry's own rule, holderOf).
    const next = holderOf(folder, new Set([a, ...folder.releases.map((r) => r.record.released)]));
    const then = next ? `ferry then reads it held by ${next} (the next claim)` : 'it is Open to the fleet again: the next worker that polls claims it';
    // Its give-up in force on the board (a reopened one no longer is: it holds the order again).
    const gaveUp = (card.state === 'gave_up' || card.state === 'closed') && folder.giveups.some((g) => g.record.agent === a);
    if (gaveUp) {
      const acked = card.state === 'closed' ? ', acknowledged on this board' : '';
      return { order_id: id, why: 'gave_up', effect: `${a} gave up${acked}, but ferry reads no give-up and still reads it held by ${a}: ${then}` };
    }
    return { order_id: id, why: 'holds', effect: `${a} holds it: ${then}` };
  });
}

/**
 * Supersede (docs/channel-format.md): allowed where a new order is the only way the ferry fleet
 * does the work: an addressed order nobody is running (offered, or stale, or held by a retired
 * agent), a give-up, or a finished order to be done again (ferry has no reopen). Refused for an
 * open order (ferry would run both) and while the holder's heartbeat is fresh. Returns null when
 * allowed, else the reason.
 */
export function supersedeRefusal(card: Card): string | null {
  if (card.superseded_by) return `${card.order_id} is already superseded by ${card.superseded_by}`;
  if (card.holder_fresh === true && card.state !== 'done' && card.state !== 'accepted') {
    return `${card.holder}'s heartbeat on ${card.order_id} is fresh: it is being run; a new order would be run as well`;
  }
  switch (card.state) {
    case 'done':
    case 'accepted':
    case 'closed':
    case 'gave_up':
      return null;
    case 'offered':
    case 'stale':
    case 'claimed':
    case 'changes_requested':
      if (card.assigned_to !== null) return null;
      return card.flags.includes('retired_holder')
        ? null
        : `${card.order_id} is not addressed to anyone: re-queue it instead (ferry would run both orders)`;
    case 'open':
    case 'blocked':
    case 'awaiting_review':
      // No worker will ever take it (each released itself): a new order is the way out.
      if (card.state === 'open' && card.flags.includes('no_worker_left')) return null;
      return `${card.order_id} is ${card.state.replace('_', ' ')}: ferry would run both orders${card.state === 'awaiting_review' ? ' (review it instead)' : ''}`;
  }
}

/** The id a supersede of `id` proposes: `<id>-2`, or the next `-N` not taken in `taken`. */
export function nextOrderId(id: string, taken: (id: string) => boolean): string {
  const m = /^(.*)-(\d+)$/.exec(id);
  const stem = m && m[1] ? m[1] : id;
  let n = m && m[2] ? Number(m[2]) + 1 : 2;
  while (taken(`${stem}-${n}`)) n++;
  return `${stem}-${n}`;
}

/** Whether any heartbeat of `agent` anywhere is fresh. */
export function agentLooksAlive(state: ChannelState, agent: string, nowMs: number, staleAfterMs: number): boolean {
  const a = canonicalName(agent);
  for (const v of state.views.values()) {
    for (const h of v.folder.heartbeats) if (h.record.agent === a && nowMs - h.arrivalMs <= staleAfterMs) return true;
  }
  return false;
}

/** docs/channel-format.md retire: refused when the agent is not in the roster or already retired. */
export function retireRefusal(state: ChannelState, agent: string): string | null {
  const a = canonicalName(agent);
  if (!state.roster.entries.has(a)) return `${a} is not in the roster`;
  if (state.retirements.some((r) => r.record.agent === a)) return `${a} is already retired`;
  return null;
}

/**
 * docs/channel-format.md reopen: allowed on `done`, `accepted`, `closed`; refused while an order that
 * depends on it is in a working state. `dependents` are those orders' cards.
 */
export function reopenRefusal(card: Card, dependents: readonly Card[]): string | null {
  if (card.state !== 'done' && card.state !== 'accepted' && card.state !== 'closed') {
    return `${card.order_id} is ${card.state}: only done, accepted or closed orders can be reopened`;
  }
  const working = dependents.filter((d) => WORKING_STATES.has(d.state));
  if (working.length > 0) {
    return `${working.map((d) => `${d.order_id} (${d.state})`).join(', ')} depend${working.length === 1 ? 's' : ''} on ${card.order_id} and already consumed its result`;
  }
  return null;
}

/**
 * What `operator`'s ack of this card names: everything the operator's current ack file on the
 * order names (Card.decided), then the give-up (`giveup:<digest>`) when the order
 * gave up and its late results (Card.late_target, a claimboard extension, docs/channel-format.md)
 * while flagged, space-separated (lib/ledger/targets.ts). An operator has one ack file per order
 * and a new one replaces it: naming again all it named, it undoes nothing, whoever holds the
 * order by then. Null when nothing is to be acknowledged now (ackRefusal).
 */
export function ackTargetOf(card: Card, operator: string): string | null {
  if (ackRefusal(card) !== null) return null;
  return joinTargets(card.decided?.acks[canonicalName(operator)], [card.state === 'gave_up' ? card.target : null, card.flags.includes('late_result') ? card.late_target : null]);
}

/**
 * What `operator`'s reopen of this card names: everything the operator's current reopen file on
 * the order names (Card.decided), then the card's terminal target (Card.target), for the same
 * reason as ackTargetOf (one reopen file per operator and order). Null when the card names
 * nothing to reopen.
 */
export function reopenTargetOf(card: Card, operator: string): string | null {
  if (!card.target) return null;
  return joinTargets(card.decided?.reopens[canonicalName(operator)], [card.target]);
}

/**
 * docs/channel-format.md acknowledge: allowed on `gave_up`, and (claimboard's extension) while a late result
 * is flagged. Null when allowed, else the reason.
 */
export function ackRefusal(card: Card): string | null {
  if (card.state === 'gave_up' && card.target) return null;
  if (card.flags.includes('late_result') && card.late_target) return null;
  if (card.late_target) return `${card.order_id}: its late ${card.late_results.length > 1 ? 'results are' : 'result is'} already acknowledged`;
  return `${card.order_id} is ${card.state}: only a give-up or a late result can be acknowledged`;
}

/** Channel-relative path of a decision record written by claimboard. */
export function decisionPath(kind: 'release' | 'retirement' | 'reopen' | 'ack' | 'supersede' | 'order', f: Record<string, unknown>): string | null {
  const s = (k: string) => (typeof f[k] === 'string' ? canonicalName(f[k]) : '');
  const safe = (...v: string[]) => v.every(isSafeComponent);
  switch (kind) {
    case 'release':
      return safe(s('order_id'), s('releaser'), s('released')) ? `tasks/${s('order_id')}/release.${s('releaser')}.${s('released')}.json` : null;
    case 'retirement':
      return safe(s('agent'), s('operator')) ? `retirements/${s('agent')}.${s('operator')}.json` : null;
    case 'reopen':
      return safe(s('order_id'), s('operator')) ? `tasks/${s('order_id')}/reopen.${s('operator')}.json` : null;
    case 'ack':
      return safe(s('order_id'), s('operator')) ? `tasks/${s('order_id')}/ack.${s('operator')}.json` : null;
    case 'supersede':
      return safe(s('order_id'), s('operator')) ? `tasks/${s('order_id')}/supersede.${s('operator')}.json` : null;
    case 'order':
      return typeof f.id === 'string' && isSafeComponent(f.id) ? `tasks/${f.id}/order.json` : null;
  }
}

/** The ledger file of an operator. */
export function ledgerPathOf(operator: string): string {
  return `ledger.${canonicalName(operator)}.jsonl`;
}

/** The fields of the old order a supersede copies into the new one (the CLI passes the record; the page, the order answer's fields). */
export type SupersedeSource = Pick<OrderRecord, 'project_id' | 'payload' | 'requires_review' | 'requires_approval' | 'depends_on' | 'result_contract'>;

/** What the operator decided on, as the page or the CLI saw it. */
export type ActionInput =
  | { readonly action: 'requeue'; readonly card: Card; readonly note: string }
  | { readonly action: 'reopen'; readonly card: Card; readonly reason: string }
  | { readonly action: 'ack'; readonly card: Card; readonly note: string }
  | {
      readonly action: 'supersede';
      readonly card: Card;
      /** The old order's record as read (its payload, project, review and dependency fields are copied). */
      readonly order: SupersedeSource;
      readonly newId: string;
      /** Whom the new order is addressed to, or null for any worker. */
      readonly assignTo: string | null;
      readonly reason: string;
    }
  // `channel`: in a hub, the channel of the identity retired (a name may be an identity in two channels).
  | { readonly action: 'retire'; readonly agent: string; readonly orders: readonly string[]; readonly reason: string; readonly confirmAlive: number; readonly channel?: string };

/**
 * Builds and signs an action request as the operator `operator` with `sign`
 * (tweetnacl in the browser, the key file in the CLI). `nowIso` is the operator's clock
 * (RFC 3339), `ledgerPrev` the hash of the last line of the operator's ledger file as the
 * page read it ('' when there is none), and `channel` the id of the channel the act is for
 * (channel-binding.ts): every record and the ledger line are bound to it. Throws Error when a
 * field would make an invalid record (e.g. an unsafe name) or `channel` is not a channel id.
 */
export function buildAction(input: ActionInput, operator: string, sign: Signer, nowIso: string, ledgerPrev: string, channel: string): ActionRequest {
  const op = canonicalName(operator);
  const previousLedger = { prev: ledgerPrev };
  const signFields = (kind: SignedKind, fields: Readonly<Record<string, unknown>>) => signFieldsAs(kind, fields, op, sign, channel);
  const line = (summary: string, reference: string) =>
    signLedgerLineAfter({ kind: LEDGER_KIND[input.action], actor: op, summary, reference, created_at: nowIso }, ledgerPrev, op, sign, channel);
  const expectOrder = (card: Card): OrderExpect => ({ order_id: card.order_id, state: card.state, holder: card.holder, target: card.target ?? null });
  switch (input.action) {
    case 'requeue': {
      const holder = input.card.holder;
      if (!holder) throw new Error(`${input.card.order_id} has no holder to release`);
      const reason = `requeued: ${input.note}`;
      const record = signFields('release', { order_id: input.card.order_id, released: holder, releaser: op, reason, at: nowIso });
      return {
        action: 'requeue',
        record,
        ledger_line: line(`released ${holder}'s claim on ${input.card.order_id} (${reason})`, input.card.order_id),
        expect: { order: expectOrder(input.card), ledger_prev: previousLedger.prev },
      };
    }
    case 'reopen': {
      const target = reopenTargetOf(input.card, op);
      if (!target) throw new Error(`${input.card.order_id} has nothing to reopen`);
      const record = signFields('reopen', { order_id: input.card.order_id, operator: op, target, reason: input.reason, at: nowIso });
      return {
        action: 'reopen',
        record,
        ledger_line: line(`reopened ${input.card.order_id} (${input.card.target ?? target}): ${input.reason}`, input.card.order_id),
        expect: { order: expectOrder(input.card), ledger_prev: previousLedger.prev },
      };
    }
    case 'ack': {
      const target = ackTargetOf(input.card, op);
      if (!target) throw new Error(`${input.card.order_id} has no give-up or late result to acknowledge`);
      const record = signFields('ack', { order_id: input.card.order_id, operator: op, target, note: input.note, at: nowIso });
      const late = input.card.flags.includes('late_result') ? `the late ${input.card.late_results.length > 1 ? 'results' : 'result'} by ${input.card.late_results.join(', ')}` : null;
      const what = input.card.state === 'gave_up' ? `the give-up${late ? ` and ${late}` : ''}` : (late ?? 'nothing');
      return {
        action: 'ack',
        record,
        ledger_line: line(`acknowledged ${what} on ${input.card.order_id}${input.note ? `: ${input.note}` : ''}`, input.card.order_id),
        expect: { order: expectOrder(input.card), ledger_prev: previousLedger.prev },
      };
    }
    case 'supersede': {
      const o = input.order;
      const newId = canonicalName(input.newId);
      const assign = input.assignTo ? canonicalName(input.assignTo) : null;
      // A ferry order, field for field as ferry writes one, issued by the operator.
      const order = signFields(
        'order',
        {
          id: newId,
          project_id: o.project_id,
          issued_by: op,
          ...(assign ? { assigned_to: assign } : {}),
          created_at: nowIso,
          payload: o.payload,
          requires_review: o.requires_review,
          requires_approval: o.requires_approval,
          ...(o.depends_on.length ? { depends_on: [...o.depends_on] } : {}),
          ...(o.result_contract ? { result_contract: { required: [...o.result_contract.required] } } : {}),
          supersedes: input.card.order_id,
        },
      );
      const record = signFields('supersede', { order_id: input.card.order_id, operator: op, by: newId, reason: input.reason, at: nowIso });
      return {
        action: 'supersede',
        record,
        order,
        ledger_line: line(`superseded ${input.card.order_id} by ${newId}${assign ? ` (addressed to ${assign})` : ''}: ${input.reason}`, input.card.order_id),
        expect: { order: expectOrder(input.card), ledger_prev: previousLedger.prev },
      };
    }
    case 'retire': {
      const agent = canonicalName(input.agent);
      const record = signFields('retirement', { agent, operator: op, reason: input.reason, at: nowIso });
      const releases = input.orders.map((id) => signFields('release', { order_id: id, released: agent, releaser: op, reason: 'retired', at: nowIso }));
      return {
        action: 'retire',
        record,
        releases,
        ledger_line: line(`retired ${agent}: ${input.reason}${input.orders.length ? `; released ${input.orders.join(', ')}` : ''}`, agent),
        expect: { retire: { agent, orders: [...input.orders], confirm_alive: input.confirmAlive }, ledger_prev: previousLedger.prev },
      };
    }
  }
}
