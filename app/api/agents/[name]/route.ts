import { errorResponse, json, withDb, withReadToken } from '@/lib/api/http';
import { agent } from '@/lib/index/read/queries';
import { retirePreview } from '@/lib/actions/retire-preview';
import { isSafeComponent } from '@/lib/ledger/names';
import { indexNowMs } from '@/lib/index/steady-clock';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/agents/:name: roster entry, what it holds, what it held and how each hold ended. */
async function get(_req: Request, { params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  if (!isSafeComponent(name)) return errorResponse('bad_request', `"${name}" is not an agent name`);
  return withDb((db) => {
    const now = indexNowMs(db);
    const a = agent(db, name, now);
    if (!a) return errorResponse('not_found', `no agent ${name} in this channel`);
    // The retirement's plan as the act reads it (the folder), each order with what ferry then does.
    const steps = a.agent.retired ? null : retirePreview(db, a.agent.name, now);
    return json(steps ? { ...a, retire_plan: steps.map((s) => s.order_id), retire_steps: steps } : a);
  });
}

export const GET = withReadToken(get);
