import { nextRoute } from '@/lib/api/next-route';
import { alertsGet } from '@/lib/api/fleet-get';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/alerts (lib/api/fleet-get.ts). */
export const GET = nextRoute(alertsGet);
