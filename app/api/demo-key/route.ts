import { nextRoute } from '@/lib/api/next-route';
import { demoKeyGet } from '@/lib/api/acts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/demo-key (lib/api/acts.ts). */
export const GET = nextRoute(demoKeyGet);
