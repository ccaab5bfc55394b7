import { nextRoute } from '@/lib/api/next-route';
import { agentsGet } from '@/lib/api/fleet-get';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/agents (lib/api/fleet-get.ts). */
export const GET = nextRoute(agentsGet);
