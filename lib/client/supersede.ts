/**
 * Supersede as the page presents it (lib/ledger/actions.ts `supersede`): where it is offered, the
 * new order's id the dialog proposes, whom it may be addressed to, and the signed input built from
 * the order answer (GET /api/orders/:id) instead of the record the CLI reads. Pure; unit-tested.
 * The server checks everything again (lib/actions/apply.ts).
 */
import type { AgentSummary, Card, OrderResponse } from '@/lib/api/types';
import { nextOrderId, supersedeRefusal, type ActionInput, type SupersedeSource } from '@/lib/ledger/actions';
import { parseStrictJsonText } from '@/lib/ledger/json';
import { payloadDigest } from '@/lib/ledger/canonical';
import { canonicalName, isSafeComponent } from '@/lib/ledger/names';
import { TERMINAL_STATES } from '@/lib/ledger/card';

/** Whether the order is finished: a supersede of it means "do it again in ferry" (ferry has no reopen). */
export const isFinished = (card: Card): boolean => TERMINAL_STATES.has(card.state);

/**
 * Whether supersede belongs on this card (shown, enabled or not): where the rules allow it, and
 * always on an order flagged `retired_holder` or `released_assignee` (supersede is what moves it)
 * and on a finished one. Never on an order already superseded: its page links the new order.
 */
export function supersedeRelevant(card: Card): boolean {
  if (card.superseded_by) return false;
  return supersedeRefusal(card) === null || card.flags.includes('retired_holder') || card.flags.includes('released_assignee') || card.flags.includes('no_worker_left') || isFinished(card);
}

/** docs/channel-format.md-style refusal of a supersede, from the card alone (the same rule the server applies); null when allowed. */
export const supersedeCheck = (card: Card): string | null => supersedeRefusal(card);

/** The menu item's and the button's words. */
export const supersedeLabel = (card: Card): string => (isFinished(card) ? 'Do it again in ferry: supersede with a new order…' : 'Supersede with a new order…');

/** One choice of the "address it to" select. */
export interface Addressee {
  readonly name: string;
  readonly role: string;
}

/**
 * Whom the new order may be addressed to: roster agents that are not retired, by name, without
 * the old holder when the card says it is retired (a retire's release retires a name in ferry
 * without a retirement record).
 */
export function addressees(agents: readonly AgentSummary[], card: Card): Addressee[] {
  const gone = card.flags.includes('retired_holder') ? card.holder : null;
  return agents
    .filter((a) => !a.retired && a.name !== gone)
    .map((a) => ({ name: a.name, role: a.role }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The addressee the dialog starts with: a finished order's own assignee when it may still be
 * chosen (do the same work again, the same way), else nobody ("any worker"): the order is
 * superseded because its assignee will not do it.
 */
export function defaultAddressee(card: Card, choices: readonly Addressee[]): string | null {
  if (isFinished(card) && card.assigned_to && choices.some((c) => c.name === card.assigned_to)) return card.assigned_to;
  return null;
}

/** The id the dialog proposes: `<id>-2`, or the next `-N` no order the page knows of has. */
export function proposedId(card: Card, known: ReadonlySet<string>): string {
  return nextOrderId(card.order_id, (x) => known.has(x));
}

/** Why `newId` cannot be the new order's id (null when it can, as far as the page knows). */
export function newIdProblem(newId: string, card: Card, known: ReadonlySet<string>): string | null {
  const id = canonicalName(newId);
  if (id.length === 0) return 'give the new order an id';
  if (id.length > 200 || !isSafeComponent(id)) return `“${newId.trim()}” is not a valid order id (letters, digits, “.”, “-” and “_” only)`;
  if (id === card.order_id) return 'the new order needs an id of its own';
  if (known.has(id)) return `there is already an order ${id}; choose another id`;
  return null;
}

/**
 * Order ids found in the answers the page holds (board, lane pages, order answers): what
 * "ids the board knows" means for the proposed id. Unknown shapes are skipped.
 */
export function knownOrderIds(answers: readonly unknown[]): Set<string> {
  const out = new Set<string>();
  const addCard = (c: unknown) => {
    if (!c || typeof c !== 'object') return;
    const card = c as Partial<Card>;
    if (typeof card.order_id === 'string') out.add(card.order_id);
    if (typeof card.superseded_by === 'string') out.add(card.superseded_by);
    if (typeof card.supersedes === 'string') out.add(card.supersedes);
    for (const d of Array.isArray(card.depends_on) ? card.depends_on : []) if (typeof d === 'string') out.add(d);
  };
  const addPage = (p: unknown) => {
    if (p && typeof p === 'object' && Array.isArray((p as { cards?: unknown }).cards)) for (const c of (p as { cards: unknown[] }).cards) addCard(c);
  };
  for (const a of answers) {
    if (!a || typeof a !== 'object') continue;
    const o = a as Record<string, unknown>;
    if (Array.isArray(o.lanes)) for (const p of o.lanes) addPage(p); // BoardResponse
    if (Array.isArray(o.pages)) for (const p of o.pages) addPage(p); // a lane's InfiniteData
    addPage(o); // one LanePage
    if (o.card) addCard(o.card); // OrderResponse
    if (Array.isArray(o.dependents)) for (const d of o.dependents) addCard(d);
  }
  return out;
}

/**
 * Whether the payload as the page holds it (a plain value: JSON in a browser) is still the task
 * the old order's signature covers, D(x) for D(x): a number beyond double precision or a -0 is
 * not, and the server then refuses the new order (its payload could not be copied exactly).
 */
export function payloadCopiesExactly(payload: unknown, digest: string): boolean {
  let text: string | undefined;
  try {
    text = JSON.stringify(payload);
  } catch {
    return false;
  }
  if (text === undefined) return false;
  const p = parseStrictJsonText(text);
  return p.ok && payloadDigest(p.node) === digest;
}

/** The fields a supersede copies, from the order answer. */
export function supersedeSource(order: OrderResponse['order']): SupersedeSource {
  return {
    project_id: order.project_id,
    payload: order.payload,
    requires_review: order.requires_review,
    requires_approval: order.requires_approval,
    depends_on: order.depends_on,
    result_contract: order.result_contract ?? null,
  };
}

/** The input buildAction signs (lib/ledger/actions.ts), from what the dialog shows. */
export function supersedeInput(card: Card, order: OrderResponse['order'], newId: string, assignTo: string | null, reason: string): ActionInput {
  return { action: 'supersede', card, order: supersedeSource(order), newId: canonicalName(newId), assignTo: assignTo ? canonicalName(assignTo) : null, reason: reason.trim() };
}
