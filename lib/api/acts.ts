import 'server-only';
/**
 * The operator's endpoints: what the action dialogs ask first (the operator, the demo key) and
 * the acts they send. The two POSTs parse their body inside `execute` (lib/actions/server.ts
 * actionRequest): the read-only, origin and rate checks come before the body is read, so the
 * executor's request schema holds nothing for them.
 */
import fs from 'node:fs';
import { z } from 'zod';
import { ClaimboardError } from '../errors';
import { defineEndpoint, type EndpointContext } from './endpoint';
import { actionRequest, applyBulk, applyOne, operatorInfo, type ActChannel } from '../actions/server';
import { operatorsOf } from '../hub/args';
import { canonicalName, isSafeComponent } from '../ledger/names';
import { settings } from '../config';

/** The fetch request of an action endpoint (Next.js's adapter always gives one). */
function requestOf(ctx: EndpointContext): Request {
  if (!ctx.request) throw new Error('an action endpoint needs the fetch request');
  return ctx.request;
}

/**
 * The channel an act of this request is applied to: the served channel `named` (by its
 * canonical name), or, named none, the one channel served. ClaimboardError `bad_request`
 * (`which_channel`, with the served channels' names) when several are served and none is named, `not_found` (`which_channel`)
 * when no served channel has that name, `index_unavailable` when it is listed gone.
 */
export function actChannelOf(ctx: EndpointContext, named: string | undefined): ActChannel {
  const served = ctx.channels();
  const list = served.list;
  // A hub's web is given no index file of its own (its channels are the registry's): there a plain operator entry names no channel.
  const hub = served.id !== 'one' && !settings.dbFile();
  let view;
  if (named === undefined) {
    // `channels`: those served now, so a page can ask about each (the key panel says where a key is an operator).
    if (list.length > 1) {
      const detail = { channels: list.filter((c) => c.state === 'served').map((c) => c.name) };
      throw new ClaimboardError('bad_request', `${list.length} channels are served here (${list.map((c) => c.name).join(', ')}): an act says which with ?channel=<name>`, { reasonCode: 'which_channel', detail });
    }
    view = list[0];
  } else view = list.find((c) => c.name === canonicalName(named));
  if (!view) throw new ClaimboardError('not_found', `no channel ${named ?? ''} is served here`, { reasonCode: 'which_channel' });
  if (view.state === 'gone') throw new ClaimboardError('index_unavailable', `channel ${view.name} is not served now (${view.why ?? 'gone'}): no action is accepted until it is back`, { reasonCode: 'index_unavailable' });
  const v = view;
  return { name: v.name, db: () => v.db(), dbFile: view.dbFile, operators: operatorsOf(settings.operators(), view.name, hub), nudgeAs: hub ? view.name : null };
}

/** An act's request parameters: the channel it is applied to (optional when one channel is served). */
const ActParams = z.object({ channel: z.string().max(200).optional() });

/**
 * POST /api/actions `{action, record, releases?, ledger_line, expect}`:
 * 201 `{written, card?, orders?}`; 400 bad input; 403 not an operator, a bad signature, another
 * origin or read-only mode; 409 the folder moved on (body has the current card); 413 a body over 16 MiB; 415 not JSON;
 * 422 a rule of docs/channel-format.md refuses it; 429 too many actions. Every refusal says why (`message`, and
 * `reason_code` for a client to decide by: lib/errors.ts REFUSAL_REASONS) and writes nothing.
 */
export const actionPost = defineEndpoint({
  method: 'POST',
  path: '/api/actions',
  request: ActParams,
  status: 201,
  async execute(ctx, { channel }) {
    const { parsed, ch } = await actionRequest(requestOf(ctx), (b) => b, (b) => [b], () => actChannelOf(ctx, channel));
    return applyOne(ch, parsed);
  },
});

const Bulk = z.object({ actions: z.array(z.unknown()).min(1).max(500) });

/** A bulk body's actions (1 to 500). */
function parseBulk(body: unknown): readonly unknown[] {
  const parsed = Bulk.safeParse(body);
  if (!parsed.success) throw new ClaimboardError('bad_request', 'expected {actions: [...]} with 1 to 500 actions', { reasonCode: 'malformed' });
  return parsed.data.actions;
}

/**
 * Refuses a bulk body whose actions are not all of channel `ch`: an action that names another
 * channel (`channel`) refuses the whole request (`channels_mixed`): each signed record binds one
 * channel, so an act of each channel is sent in a request of its own.
 */
function refuseMixed(actions: readonly unknown[], ch: ActChannel): void {
  const others = new Set<string>();
  for (const a of actions) {
    const named = (a as { channel?: unknown } | null)?.channel;
    if (named !== undefined && (typeof named !== 'string' || canonicalName(named) !== ch.name)) others.add(typeof named === 'string' ? named : JSON.stringify(named));
  }
  if (others.size > 0) throw new ClaimboardError('bad_request', `the actions span channels (${[ch.name, ...others].join(', ')}): send the acts of each channel in a request of its own`, { reasonCode: 'channels_mixed' });
}

/**
 * POST /api/actions/bulk `{actions: ActionRequest[]}` (at most 500; re-queue or acknowledge
 * over a lane selection). Each action is checked against what the operator saw, exactly as
 * POST /api/actions does, in order; the ledger lines are chained, so after the first refusal
 * the rest are not applied ("sign again"). 200 `{results: [{order_id, status, written?|reason and reason_code}]}`;
 * the whole request refused as POST /api/actions refuses one (400, 403, 413, 415, 429).
 */
export const bulkPost = defineEndpoint({
  method: 'POST',
  path: '/api/actions/bulk',
  request: ActParams,
  async execute(ctx, { channel }) {
    const { parsed, ch } = await actionRequest(requestOf(ctx), parseBulk, (a) => a, () => actChannelOf(ctx, channel), refuseMixed);
    return { results: applyBulk(ch, parsed) };
  },
});

/**
 * GET /api/operators/:name?channel=: whether the name is in the roster and an operator of the channel (actChannelOf),
 * its pinned key (to check an imported key against), and the hash of the last line of its ledger
 * file (`ledger_prev`: what the next signed ledger line must chain to).
 */
export const operatorGet = defineEndpoint({
  method: 'GET',
  path: '/api/operators/:name',
  request: ActParams.extend({ name: z.string().refine(isSafeComponent, { error: (iss) => `"${String(iss.input)}" is not a name` }) }),
  execute: (ctx, { name, channel }) => operatorInfo(actChannelOf(ctx, channel), name),
});

/**
 * GET /api/demo-key: in demo mode only (`npm start` with no channel), the demo operator's seed,
 * so a newcomer can act within a minute. 404 on a real channel: no key is ever served there.
 */
export const demoKeyGet = defineEndpoint({
  method: 'GET',
  path: '/api/demo-key',
  request: z.object({}),
  execute() {
    const file = settings.demoOperatorKey();
    if (!file) throw new ClaimboardError('not_found', 'no demo key: this dashboard serves a real channel');
    let seed: string;
    try {
      seed = fs.readFileSync(file, 'utf8').trim();
    } catch {
      throw new ClaimboardError('not_found', 'the demo key file is missing');
    }
    return { name: 'ops', seed, note: 'demo only: this key signs for the demo operator ops of ./.claimboard/demo' };
  },
});
