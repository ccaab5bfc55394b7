/**
 * `claimboard requeue|retire|reopen|ack`: the operator actions from a
 * terminal, through the same rules and writer as the web page (lib/actions/apply.ts), with no
 * server running. The operator decides on the board as derived right now from the folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { applyAction, deriveSubset, type ApplyContext } from '../lib/actions/apply';
import { ledgerPrevOf } from '../lib/actions/write';
import { actingChannel, newChannelId } from '../lib/actions/channel-id';
import { serverVerify } from '../lib/index/disk/verifier';
import { settings } from '../lib/config';
import { ackRefusal, buildAction, reopenRefusal, ferryConsequence, ledgerPathOf, nextOrderId, retirePlan, retireSteps, type ActionInput } from '../lib/ledger/actions';
import { naclSign, naclPublicKey } from '../lib/ledger/nacl-verify';
import { canonicalName, isSafeComponent } from '../lib/ledger/names';
import { isOperator } from '../lib/ledger/verify';
import { staleAfterMsFor } from './stale-after-for';

export interface ActionCliOptions {
  readonly key: string;
  readonly as?: string;
  readonly reason?: string;
  readonly note?: string;
  readonly confirmAlive?: boolean;
  readonly staleAfter?: number;
  /** supersede: whom the new order is addressed to (default: nobody, any worker). */
  readonly to?: string;
  /** supersede: the new order's id (default `<order>-2`, or the next free `-N`). */
  readonly id?: string;
}

/** An action refused before or by the rules: the message is printed on one line. */
export class ActionCliError extends Error {}

/** Reads a ferryman key file: 64 hex digits (whitespace around ignored). Throws ActionCliError. */
export function readSeed(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch (e) {
    throw new ActionCliError(`cannot read the key file ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new ActionCliError(`${file} is not an Ed25519 seed (64 hex digits)`);
  return text.toLowerCase();
}

/** The operator's name: --as, else the key file's `<name>.key`. Throws ActionCliError. */
export function operatorName(keyFile: string, as?: string): string {
  const name = as ?? (path.basename(keyFile).endsWith('.key') ? path.basename(keyFile).slice(0, -'.key'.length) : '');
  if (!name) throw new ActionCliError('say who you are: --as <name> (or name the key file <name>.key)');
  if (!isSafeComponent(name)) throw new ActionCliError(`"${name}" is not a valid operator name`);
  return canonicalName(name);
}

/**
 * Runs one action on the channel at `root` for `subject` (an order id, or an agent for retire).
 * Returns the channel-relative paths written and what the ferry fleet will do with them. Throws
 * ActionCliError with the reason on refusal.
 */
export function runAction(kind: ActionInput['action'], root: string, subject: string, opts: ActionCliOptions): { written: string[]; ferry: string } {
  const seed = readSeed(opts.key);
  const op = operatorName(opts.key, opts.as);
  const ctx: ApplyContext = {
    root: path.resolve(root),
    nowMs: Date.now(),
    staleAfterMs: staleAfterMsFor(root, opts.staleAfter),
    operators: settings.operators(),
    // A folder that names no channel yet gets one with this act (lib/ledger/channel-binding.ts).
    proposedChannel: newChannelId(),
    verify: serverVerify,
  };
  let state;
  try {
    state = deriveSubset(ctx, null);
  } catch (e) {
    throw new ActionCliError(e instanceof Error ? e.message : String(e));
  }
  if (!isOperator(state.roster, op)) {
    throw new ActionCliError(state.roster.entries.has(op) ? `${op} is not an operator of this channel` : `${op} is not in the roster of this channel`);
  }
  const entry = state.roster.entries.get(op);
  if (entry?.public_key && entry.public_key !== naclPublicKey(seed)) {
    throw new ActionCliError(`${opts.key} is not ${op}'s key in the roster: its signatures would be refused`);
  }
  const id = canonicalName(subject);
  const card = state.orders.find((c) => c.order_id === id);
  let input: ActionInput;
  switch (kind) {
    case 'retire':
      input = {
        action: 'retire',
        agent: id,
        orders: retirePlan(state, id),
        reason: opts.reason ?? '',
        confirmAlive: opts.confirmAlive ? 2 : 0,
      };
      break;
    case 'requeue':
    case 'reopen':
    case 'ack':
      if (!card) throw new ActionCliError(`there is no order ${id} in ${root}`);
      // Nothing to name in the record: the rule's own words, as the server gives them (422).
      if (kind === 'ack' && ackRefusal(card)) throw new ActionCliError(`refused (422): ${ackRefusal(card)}`);
      if (kind === 'reopen' && !card.target) throw new ActionCliError(`refused (422): ${reopenRefusal(card, []) ?? `${card.order_id} names nothing to reopen`}`);
      input =
        kind === 'requeue'
          ? { action: 'requeue', card, note: opts.reason ?? '' }
          : kind === 'reopen'
            ? { action: 'reopen', card, reason: opts.reason ?? '' }
            : { action: 'ack', card, note: opts.note ?? '' };
      break;
    case 'supersede': {
      const view = card ? state.views.get(card.order_id) : undefined;
      if (!card || !view) throw new ActionCliError(`there is no order ${id} in ${root}`);
      const newId = opts.id ?? nextOrderId(card.order_id, (x) => state.views.has(x) || fs.existsSync(path.join(root, 'tasks', x)));
      if (!isSafeComponent(newId)) throw new ActionCliError(`"${newId}" is not a valid order id`);
      input = { action: 'supersede', card, order: view.folder.order.record, newId, assignTo: opts.to ?? null, reason: opts.reason ?? '' };
      break;
    }
  }
  const channel = actingChannel(ctx.root, ctx.proposedChannel);
  if ('problem' in channel) throw new ActionCliError(channel.problem);
  let request;
  try {
    request = buildAction(input, op, (p) => naclSign(seed, p), new Date(ctx.nowMs).toISOString(), ledgerPrevOf(path.join(ctx.root, ledgerPathOf(op))).prev, channel.id);
  } catch (e) {
    throw new ActionCliError(e instanceof Error ? e.message : String(e));
  }
  const res = applyAction(request, ctx);
  if (res.status !== 201) throw new ActionCliError(`refused (${res.status}): ${res.reason}`);
  // A retirement: what ferry does with each order released, one line each (as the agent page says it).
  const steps = kind === 'retire' ? retireSteps(state, id).map((st) => `\n  ${st.order_id}: ${st.effect}`) : [];
  return { written: [...res.written], ferry: ferryConsequence(kind, card ?? null) + steps.join('') };
}
