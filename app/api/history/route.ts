import { nextRoute } from '@/lib/api/next-route';
import { historyGet } from '@/lib/api/holds-get';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/history: what /history draws for a window and a query (lib/api/holds-get.ts). */
export const GET = nextRoute(historyGet);
