import 'server-only';
/**
 * The fleet's read endpoints beside the board: the agents, one agent, the operators' acts
 * (activity), the problems, the stale-threshold report (tuning) and the alerts' status.
 */
import { z } from 'zod';
import { ClaimboardError } from '../errors';
import { defineEndpoint } from './endpoint';
import { activity, ACTIVITY_PAGE_SIZE } from '../index/read/activity';
import { agent, agents, decodeCursor, problems } from '../index/read/queries';
import { isKnownAgent, tuningReport } from '../index/read/tuning-queries';
import { alertsStatus } from '../alerts/status';
import { retirePreview } from '../actions/retire-preview';
import { actChannelOf } from './acts';
import { ACT_KINDS, type ActKind } from '../ledger/acts';
import { isSafeComponent } from '../ledger/names';
import { channelReads, ChannelParam, oneChannelRead, whichChannel } from './channel-reads';
import { decodeHubActCursor, hubActivity, hubAgents, hubProblems, type HubRead } from './hub-fleet';

/** The reads of a hub, their names given (channelReads names each channel read in a hub). */
const hubReads = (reads: readonly { name: string | null }[]) => reads as readonly HubRead[];

/**
 * GET /api/agents[?channel=]: the roster with pinned keys, retirements, holdings, last arrival,
 * clock offset. In a hub with no channel named, every channel's, each agent with its channel.
 */
export const agentsGet = defineEndpoint({
  method: 'GET',
  path: '/api/agents',
  request: z.object({ channel: ChannelParam }),
  execute(ctx, { channel }) {
    const { hub, reads } = channelReads(ctx, channel);
    if (hub) return hubAgents(hubReads(reads));
    const [r] = reads as [(typeof reads)[number]];
    const a = agents(r.db, r.nowMs);
    return r.name === null ? a : { ...a, agents: a.agents.map((x) => ({ ...x, channel: r.name })) };
  },
});

/**
 * GET /api/agents/:name[?channel=]: roster entry, what it holds, what it held and how each hold
 * ended. In a hub with no channel named: the one channel that knows the name; when two do, they
 * are two identities, and the request must say which (`which_channel`, the channels listed).
 */
export const agentGet = defineEndpoint({
  method: 'GET',
  path: '/api/agents/:name',
  request: z.object({ name: z.string().refine(isSafeComponent, { error: (iss) => `"${String(iss.input)}" is not an agent name` }), channel: ChannelParam }),
  execute(ctx, { name, channel }) {
    const { hub, reads } = channelReads(ctx, channel);
    const found = reads.flatMap((r) => {
      const a = agent(r.db, name, r.nowMs);
      return a ? [{ r, a }] : [];
    });
    const [one, ...more] = found;
    if (!one) throw new ClaimboardError('not_found', hub ? `no agent ${name} in any channel served` : `no agent ${name} in ${reads[0]?.name ? `channel ${reads[0].name}` : 'this channel'}`);
    if (more.length > 0) throw whichChannel(`agent ${name} is in ${found.length} channels (${found.map((f) => f.r.name).join(', ')}), one identity in each`, found.map((f) => f.r.name as string));
    const { r, a } = one;
    // The retirement's plan as the act reads it (the folder), each order with what ferry then does.
    const steps = a.agent.retired ? null : retirePreview(actChannelOf(ctx, r.name ?? undefined), a.agent.name, r.nowMs);
    const answer = steps ? { ...a, retire_plan: steps.map((s) => s.order_id), retire_steps: steps } : a;
    return r.name === null ? answer : { channel: r.name, ...answer };
  },
});

const Name = z.string().max(200).refine(isSafeComponent, 'not a name');

/**
 * GET /api/activity?operator=&act=&order=&channel=&cursor=&limit=: every operator act of the
 * channel (decision records and signed ledger lines, paired), newest arrival first, one keyset
 * page. In a hub with no channel named, every channel's, each act with its channel (hub-fleet.ts).
 */
export const activityGet = defineEndpoint({
  method: 'GET',
  path: '/api/activity',
  request: z
    .object({
      operator: Name.optional(),
      act: z.enum(ACT_KINDS as unknown as [ActKind, ...ActKind[]]).optional(),
      order: Name.optional(),
      channel: ChannelParam,
      cursor: z.string().max(2000).optional(),
      limit: z.coerce.number().int().min(1).max(500).optional(),
    })
    .transform((p, issues) => {
      if (p.cursor && !decodeCursor(p.cursor) && !decodeHubActCursor(p.cursor)) {
        issues.addIssue({ code: 'custom', path: ['cursor'], message: 'not a cursor from this API' });
        return z.NEVER;
      }
      return p;
    }),
  execute(ctx, { cursor, limit, channel, ...f }) {
    const filters = { ...(f.operator ? { operator: f.operator } : {}), ...(f.act ? { act: f.act } : {}), ...(f.order ? { order: f.order } : {}) };
    const { hub, reads } = channelReads(ctx, channel);
    if (hub) {
      const after = cursor ? decodeHubActCursor(cursor) : null;
      if (cursor && !after) throw new ClaimboardError('bad_request', 'cursor: a cursor of one channel; this answer is of several');
      return hubActivity(hubReads(reads), filters, after, limit ?? ACTIVITY_PAGE_SIZE);
    }
    if (cursor && !decodeCursor(cursor)) throw new ClaimboardError('bad_request', 'cursor: a cursor of several channels; this answer is of one');
    const [r] = reads as [(typeof reads)[number]];
    const a = activity(r.db, filters, cursor ?? null, r.nowMs, limit);
    return r.name === null ? a : { ...a, acts: a.acts.map((x) => ({ ...x, channel: r.name })), ledgers: a.ledgers.map((l) => ({ ...l, channel: r.name })) };
  },
});

/** GET /api/problems[?channel=]: every problem row and every ledger file's integrity; in a hub with no channel named, every channel's (hub-fleet.ts). */
export const problemsGet = defineEndpoint({
  method: 'GET',
  path: '/api/problems',
  request: z.object({ channel: ChannelParam }),
  execute(ctx, { channel }) {
    const { hub, reads } = channelReads(ctx, channel);
    if (hub) return hubProblems(hubReads(reads));
    const [r] = reads as [(typeof reads)[number]];
    const p = problems(r.db);
    if (r.name === null) return p;
    const name = r.name;
    return { problems: p.problems.map((x) => ({ ...x, channel: name })), ledger: Object.fromEntries(Object.entries(p.ledger).map(([file, l]) => [file, { ...l, channel: name }])) };
  },
});

/**
 * GET /api/tuning[?agent=<name>][&channel=]: the stale-threshold report (TuningReport,
 * docs/tuning.md): heartbeat gaps seen here, run durations, the suggested threshold and what it
 * would flag, time in lane (channel only). An agent this channel does not know: 404. A threshold
 * is one channel's: a hub's request names it (`which_channel` otherwise); the report's `channel`
 * is that channel's folder, as with one.
 */
export const tuningGet = defineEndpoint({
  method: 'GET',
  path: '/api/tuning',
  request: z.object({ agent: z.string().max(200).refine(isSafeComponent, 'not an agent name').optional(), channel: ChannelParam }),
  execute(ctx, { agent: name, channel }) {
    const r = oneChannelRead(ctx, channel, 'a stale threshold');
    if (name !== undefined && !isKnownAgent(r.db, name)) throw new ClaimboardError('not_found', `no agent ${name} in ${r.name ? `channel ${r.name}` : 'this channel'}`);
    return tuningReport(r.db, name ?? null, r.nowMs);
  },
});

/**
 * GET /api/alerts: whether this server sends alerts, each target (webhook URLs redacted to
 * `scheme://host/…`: their path and query usually hold the secret) with its last success, last
 * error, counts sent, failed and pending; what pages now; the newest messages. On the index's
 * clock (steady-clock.ts), as the alerts' own records are.
 */
export const alertsGet = defineEndpoint({
  method: 'GET',
  path: '/api/alerts',
  request: z.object({}),
  execute: (ctx) => alertsStatus(ctx.db(), ctx.nowMs()),
});
