import { nextRoute } from '@/lib/api/next-route';
import { actionPost } from '@/lib/api/acts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** POST /api/actions (lib/api/acts.ts). */
export const POST = nextRoute(actionPost);
