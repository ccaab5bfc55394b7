import { nextRoute } from '@/lib/api/next-route';
import { holdsGet } from '@/lib/api/holds-get';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/holds (lib/api/holds-get.ts; the web process answers it ahead of Next.js, lib/api/fast-path.ts). */
export const GET = nextRoute(holdsGet);
