import { nextRoute } from '@/lib/api/next-route';
import { operatorGet } from '@/lib/api/acts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/operators/:name (lib/api/acts.ts). */
export const GET = nextRoute(operatorGet);
