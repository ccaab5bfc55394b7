import { nextRoute } from '@/lib/api/next-route';
import { tuningGet } from '@/lib/api/fleet-get';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/tuning (lib/api/fleet-get.ts). */
export const GET = nextRoute(tuningGet);
