import { nextRoute } from '@/lib/api/next-route';
import { problemsGet } from '@/lib/api/fleet-get';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/problems (lib/api/fleet-get.ts). */
export const GET = nextRoute(problemsGet);
