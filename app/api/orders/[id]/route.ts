import { nextRoute } from '@/lib/api/next-route';
import { orderGet } from '@/lib/api/order-get';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/orders/:id (lib/api/order-get.ts; the web process answers it ahead of Next.js, lib/api/fast-path.ts). */
export const GET = nextRoute(orderGet);
