import { z } from 'zod';
import { errorResponse, json, withDb, withReadToken } from '@/lib/api/http';
import { isKnownAgent, tuningReport } from '@/lib/index/read/tuning-queries';
import { isSafeComponent } from '@/lib/ledger/names';
import { indexNowMs } from '@/lib/index/steady-clock';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const Query = z.object({ agent: z.string().max(200).refine(isSafeComponent, 'not an agent name').optional() });

/**
 * GET /api/tuning[?agent=<name>]: the stale-threshold report (TuningReport, docs/tuning.md):
 * heartbeat gaps seen here, run durations, the suggested threshold and what it would flag, time
 * in lane (channel only). An agent this channel does not know: 404.
 */
function get(req: Request) {
  const params = Object.fromEntries(new URL(req.url).searchParams);
  const parsed = Query.safeParse({ ...(params.agent ? { agent: params.agent } : {}) });
  if (!parsed.success) return errorResponse('bad_request', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const { agent } = parsed.data;
  return withDb((db) => {
    if (agent !== undefined && !isKnownAgent(db, agent)) return errorResponse('not_found', `no agent ${agent} in this channel`);
    return json(tuningReport(db, agent ?? null, indexNowMs(db)));
  });
}

export const GET = withReadToken(get);
