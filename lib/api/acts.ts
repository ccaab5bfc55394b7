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
import { actionRequest, applyBulk, applyOne, operatorInfo } from '../actions/server';
import { isSafeComponent } from '../ledger/names';
import { settings } from '../config';

/** The fetch request of an action endpoint (Next.js's adapter always gives one). */
function requestOf(ctx: EndpointContext): Request {
  if (!ctx.request) throw new Error('an action endpoint needs the fetch request');
  return ctx.request;
}

/** The served channel's root, or null while the index cannot say (actionRequest then leaves the folder to the act's own checks). */
function rootIfIndexed(ctx: EndpointContext): string | null {
  try {
    return ctx.served().root;
  } catch (e) {
    if (e instanceof ClaimboardError) return null;
    throw e;
  }
}

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
  request: z.object({}),
  status: 201,
  async execute(ctx) {
    const body = await actionRequest(requestOf(ctx), (b) => b, (b) => [b], () => rootIfIndexed(ctx));
    return applyOne(ctx.db(), body, ctx.served());
  },
});

const Bulk = z.object({ actions: z.array(z.unknown()).min(1).max(500) });

function parseBulk(body: unknown): readonly unknown[] {
  const parsed = Bulk.safeParse(body);
  if (!parsed.success) throw new ClaimboardError('bad_request', 'expected {actions: [...]} with 1 to 500 actions', { reasonCode: 'malformed' });
  return parsed.data.actions;
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
  request: z.object({}),
  async execute(ctx) {
    const actions = await actionRequest(requestOf(ctx), parseBulk, (a) => a, () => rootIfIndexed(ctx));
    return { results: applyBulk(ctx.db(), actions, ctx.served()) };
  },
});

/**
 * GET /api/operators/:name: whether the name is in the roster and an operator of this channel,
 * its pinned key (to check an imported key against), and the hash of the last line of its ledger
 * file (`ledger_prev`: what the next signed ledger line must chain to).
 */
export const operatorGet = defineEndpoint({
  method: 'GET',
  path: '/api/operators/:name',
  request: z.object({ name: z.string().refine(isSafeComponent, { error: (iss) => `"${String(iss.input)}" is not a name` }) }),
  execute: (ctx, { name }) => operatorInfo(ctx.db(), name, ctx.served()),
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
