import { nextRoute } from '@/lib/api/next-route';
import { boardGet } from '@/lib/api/board-get';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/board (lib/api/board-get.ts; the web process answers it ahead of Next.js, lib/api/fast-path.ts). */
export const GET = nextRoute(boardGet);
