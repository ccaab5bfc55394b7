import { nextRoute } from '@/lib/api/next-route';
import { metricsGet } from '@/lib/api/metrics-get';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /metrics, Prometheus text (lib/api/metrics-get.ts). */
export const GET = nextRoute(metricsGet);
