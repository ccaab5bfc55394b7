import { nextRoute } from '@/lib/api/next-route';
import { bulkPost } from '@/lib/api/acts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** POST /api/actions/bulk (lib/api/acts.ts). */
export const POST = nextRoute(bulkPost);
