import 'server-only';
/**
 * The fleet's read endpoints beside the board: the agents, one agent, the operators' acts
 * (activity), the problems, the stale-threshold report (tuning) and the alerts' status.
 */
import { z } from 'zod';
import { ClaimboardError } from '../errors';
import { defineEndpoint } from './endpoint';
import { activity } from '../index/read/activity';
import { agent, agents, decodeCursor, problems } from '../index/read/queries';
import { isKnownAgent, tuningReport } from '../index/read/tuning-queries';
import { alertsStatus } from '../alerts/status';
import { retirePreview } from '../actions/retire-preview';
import { actChannelOf } from './acts';
import { ACT_KINDS, type ActKind } from '../ledger/acts';
import { isSafeComponent } from '../ledger/names';

/** GET /api/agents: the roster with pinned keys, retirements, holdings, last arrival, clock offset. */
export const agentsGet = defineEndpoint({
  method: 'GET',
  path: '/api/agents',
  request: z.object({}),
  execute: (ctx) => agents(ctx.db(), ctx.nowMs()),
});

/** GET /api/agents/:name: roster entry, what it holds, what it held and how each hold ended. */
export const agentGet = defineEndpoint({
  method: 'GET',
  path: '/api/agents/:name',
  request: z.object({ name: z.string().refine(isSafeComponent, { error: (iss) => `"${String(iss.input)}" is not an agent name` }) }),
  execute(ctx, { name }) {
    const db = ctx.db();
    const now = ctx.nowMs();
    const a = agent(db, name, now);
    if (!a) throw new ClaimboardError('not_found', `no agent ${name} in this channel`);
    // The retirement's plan as the act reads it (the folder), each order with what ferry then does.
    const steps = a.agent.retired ? null : retirePreview(actChannelOf(ctx, undefined), a.agent.name, now);
    return steps ? { ...a, retire_plan: steps.map((s) => s.order_id), retire_steps: steps } : a;
  },
});

const Name = z.string().max(200).refine(isSafeComponent, 'not a name');

/**
 * GET /api/activity?operator=&act=&order=&cursor=&limit=: every operator act of the channel
 * (decision records and signed ledger lines, paired), newest arrival first, one keyset page.
 */
export const activityGet = defineEndpoint({
  method: 'GET',
  path: '/api/activity',
  request: z
    .object({
      operator: Name.optional(),
      act: z.enum(ACT_KINDS as unknown as [ActKind, ...ActKind[]]).optional(),
      order: Name.optional(),
      cursor: z.string().max(2000).optional(),
      limit: z.coerce.number().int().min(1).max(500).optional(),
    })
    .transform((p, issues) => {
      if (p.cursor && !decodeCursor(p.cursor)) {
        issues.addIssue({ code: 'custom', path: ['cursor'], message: 'not a cursor from this API' });
        return z.NEVER;
      }
      return p;
    }),
  execute(ctx, { cursor, limit, ...f }) {
    const filters = { ...(f.operator ? { operator: f.operator } : {}), ...(f.act ? { act: f.act } : {}), ...(f.order ? { order: f.order } : {}) };
    const db = ctx.db();
    return activity(db, filters, cursor ?? null, ctx.nowMs(), limit);
  },
});

/** GET /api/problems: every problem row and every ledger file's integrity. */
export const problemsGet = defineEndpoint({
  method: 'GET',
  path: '/api/problems',
  request: z.object({}),
  execute: (ctx) => problems(ctx.db()),
});

/**
 * GET /api/tuning[?agent=<name>]: the stale-threshold report (TuningReport, docs/tuning.md):
 * heartbeat gaps seen here, run durations, the suggested threshold and what it would flag, time
 * in lane (channel only). An agent this channel does not know: 404.
 */
export const tuningGet = defineEndpoint({
  method: 'GET',
  path: '/api/tuning',
  request: z.object({ agent: z.string().max(200).refine(isSafeComponent, 'not an agent name').optional() }),
  execute(ctx, { agent: name }) {
    const db = ctx.db();
    if (name !== undefined && !isKnownAgent(db, name)) throw new ClaimboardError('not_found', `no agent ${name} in this channel`);
    return tuningReport(db, name ?? null, ctx.nowMs());
  },
});

/**
 * GET /api/alerts: whether this server sends alerts, each target (webhook URLs redacted to
 * `scheme://host/…`: their path and query usually hold the secret) with its last success, last
 * error, counts sent, failed and pending; what pages now; the newest messages. On this
 * machine's wall clock, as the alerts' own records are.
 */
export const alertsGet = defineEndpoint({
  method: 'GET',
  path: '/api/alerts',
  request: z.object({}),
  execute: (ctx) => alertsStatus(ctx.db(), Date.now()),
});
