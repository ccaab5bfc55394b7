import { nextRoute } from '@/lib/api/next-route';
import { eventsGet } from '@/lib/api/events-get';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/events, the server-sent events (lib/api/events-get.ts). */
export const GET = nextRoute(eventsGet);
