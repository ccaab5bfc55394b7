import { nextRoute } from '@/lib/api/next-route';
import { activityGet } from '@/lib/api/fleet-get';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/activity (lib/api/fleet-get.ts). */
export const GET = nextRoute(activityGet);
