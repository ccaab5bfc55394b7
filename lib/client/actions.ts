'use client';
/**
 * Sending operator actions: sign in this browser with the operator's seed
 * (tweetnacl), chain the ledger line to the operator's ledger file as the server reads it right
 * now, bind every file to the channel the server names (lib/ledger/channel-binding.ts), POST the
 * signed request. Only the signed request leaves the browser; the seed never does.
 * After a success the board, the order(s) and the agents are invalidated so the card moves at
 * once (the live feed would do it within a second anyway).
 */
import type { QueryClient } from '@tanstack/react-query';
import type { Card } from '@/lib/ledger/derive';
import { buildAction, type ActionInput, type ActionRequest } from '@/lib/ledger/actions';
import { naclSign } from '@/lib/ledger/nacl-verify';
import { chainActions, type BulkResult } from './action-plan';
import type { OperatorKey } from './keys';
import { fetchOperator } from './operator';
import { queryKeys } from './query-keys';
import { errorCodeOf, reasonCodeOf } from './api';
import { channelOfCard } from '@/lib/ui/card-channel';
import type { ErrorCode, RefusalReason } from '@/lib/errors';

/** A signed action the server answered. */
export type ActionOutcome =
  | { readonly ok: true; readonly written: readonly string[]; readonly card?: Card; readonly orders?: readonly Card[] }
  | {
      readonly ok: false;
      readonly status: number;
      readonly error: ErrorCode | null;
      /** Why, as a code the dialogs decide by (lib/errors.ts REFUSAL_REASONS); null when the answer names none. */
      readonly reason_code: RefusalReason | null;
      readonly message: string;
      readonly card?: Card;
      /** The paths written of an act only partly written (the message says what was not); absent when nothing was written. */
      readonly written?: readonly string[];
    };

const signerOf = (key: OperatorKey) => (payload: string) => naclSign(key.seed, payload);

/**
 * The served channel an act on `input`'s card (a retire: its identity) is for: the card's
 * `channel` (a hub's cards and agents name theirs; the request then says it, `?channel=`), or
 * undefined (one channel: the server's).
 */
export function servedChannelOf(input: ActionInput): string | undefined {
  return 'card' in input ? channelOfCard(input.card) : input.channel;
}

const withChannel = (path: string, served: string | undefined) => (served ? `${path}?channel=${encodeURIComponent(served)}` : path);

/**
 * What an act is signed against, asked of the server just now: the hash of the last line of the
 * operator's ledger file in the served channel `served`, and the channel id the act is bound to.
 * Throws when the server names no channel.
 */
async function signingContext(key: OperatorKey, served: string | undefined): Promise<{ prev: string; channel: string }> {
  const info = await fetchOperator(key.name, undefined, served);
  if (!info.channel) throw new Error(info.channel_problem ?? 'the server names no channel to sign the act for');
  return { prev: info.ledger_prev, channel: info.channel };
}

async function postJson(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    cache: 'no-store',
    credentials: 'same-origin',
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
}

const str = (o: unknown, k: string): string | undefined =>
  o && typeof o === 'object' && k in o && typeof (o as Record<string, unknown>)[k] === 'string' ? ((o as Record<string, unknown>)[k] as string) : undefined;

/** Signs one action as `key` (ledger chained to the file as it is now) and sends it to POST /api/actions. */
export async function signAndSend(input: ActionInput, key: OperatorKey): Promise<ActionOutcome> {
  const served = servedChannelOf(input);
  const { prev, channel } = await signingContext(key, served);
  const req = buildAction(input, key.name, signerOf(key), new Date().toISOString(), prev, channel);
  const res = await postJson(withChannel('/api/actions', served), req);
  if (res.status === 201) {
    const b = res.body as { written?: string[]; card?: Card; orders?: Card[] };
    return { ok: true, written: b.written ?? [], ...(b.card ? { card: b.card } : {}), ...(b.orders ? { orders: b.orders } : {}) };
  }
  const card = res.body && typeof res.body === 'object' && 'card' in res.body ? ((res.body as { card?: Card }).card ?? undefined) : undefined;
  const partly = res.body && typeof res.body === 'object' ? (res.body as { written?: unknown }).written : undefined;
  const written = Array.isArray(partly) && partly.length > 0 && partly.every((p) => typeof p === 'string') ? partly : undefined;
  return {
    ok: false,
    status: res.status,
    error: errorCodeOf(res.body),
    reason_code: reasonCodeOf(res.body),
    message: str(res.body, 'message') ?? (typeof res.body === 'string' && res.body ? res.body : `the server answered ${res.status}`),
    ...(card ? { card } : {}),
    ...(written ? { written } : {}),
  };
}

/** A bulk request the server answered: one result per action, or a refusal of the whole request. */
export type BulkOutcome =
  | { readonly ok: true; readonly results: readonly BulkResult[] }
  | { readonly ok: false; readonly status: number; readonly message: string };

/**
 * Signs a batch (re-queue or acknowledge over a lane selection), each against the card the
 * operator selected, ledger lines chained (lib/client/action-plan.ts `chainActions`), and sends
 * it to POST /api/actions/bulk, in the channel of its cards (`?channel=` in a hub). Each action
 * names its card's channel. A batch spanning a hub's channels is not signed (the dialog refuses it
 * first; the server would refuse it whole, `channels_mixed`).
 */
export async function signAndSendBulk(inputs: readonly ActionInput[], key: OperatorKey): Promise<BulkOutcome> {
  const spanned = [...new Set(inputs.map(servedChannelOf).filter((c) => c !== undefined))].sort();
  // The server refuses it whole (`channels_mixed`); nothing is signed for a request it refuses.
  if (spanned.length > 1) throw new Error(`the orders are in ${spanned.length} channels (${spanned.join(', ')}): a bulk act is of one channel; nothing was signed`);
  const served = inputs[0] ? servedChannelOf(inputs[0]) : undefined;
  const { prev, channel } = await signingContext(key, served);
  const now = new Date().toISOString();
  const actions: ActionRequest[] = chainActions(inputs, prev, (input, p) => buildAction(input, key.name, signerOf(key), now, p, channel));
  const named = actions.map((a, i) => {
    const c = inputs[i] ? servedChannelOf(inputs[i]) : undefined;
    return c ? { ...a, channel: c } : a;
  });
  const res = await postJson(withChannel('/api/actions/bulk', served), { actions: named });
  if (res.status === 200 && res.body && typeof res.body === 'object' && Array.isArray((res.body as { results?: unknown }).results)) {
    return { ok: true, results: (res.body as { results: BulkResult[] }).results };
  }
  return { ok: false, status: res.status, message: str(res.body, 'message') ?? `the server answered ${res.status}` };
}

/** After a write: what may have moved. */
export function invalidateAfterAction(qc: QueryClient, orderIds: readonly string[], agent?: string, operator?: string): void {
  void qc.invalidateQueries({ queryKey: queryKeys.boardAll() });
  for (const id of orderIds) void qc.invalidateQueries({ queryKey: queryKeys.order(id) });
  void qc.invalidateQueries({ queryKey: queryKeys.agents() });
  void qc.invalidateQueries({ queryKey: queryKeys.agentAll() });
  if (agent) void qc.invalidateQueries({ queryKey: queryKeys.agent(agent) });
  if (operator) void qc.invalidateQueries({ queryKey: queryKeys.operator(operator) });
}
