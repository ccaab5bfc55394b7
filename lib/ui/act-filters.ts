/**
 * The activity page's filters as they live in the URL (`?operator=&act=&order=`), and as the
 * query key and the API's query string (lib/client/query-keys.ts, lib/client/api.ts).
 */
import { z } from 'zod';
import type { ActFilters } from '@/lib/api/types';
import { ACT_KINDS } from '@/lib/ledger/acts';

const actFiltersSchema = z.object({
  operator: z.string().trim().min(1).optional().catch(undefined),
  act: z.enum(ACT_KINDS as [string, ...string[]]).optional().catch(undefined),
  order: z.string().trim().min(1).optional().catch(undefined),
});

/** Activity filters from URL search parameters; unknown or malformed values are dropped. */
export function parseActFilters(params: { get(name: string): string | null }): ActFilters {
  const parsed = actFiltersSchema.parse({ operator: params.get('operator') ?? undefined, act: params.get('act') ?? undefined, order: params.get('order') ?? undefined });
  return {
    ...(parsed.operator ? { operator: parsed.operator } : {}),
    ...(parsed.act ? { act: parsed.act as NonNullable<ActFilters['act']> } : {}),
    ...(parsed.order ? { order: parsed.order } : {}),
  };
}

/** Activity filters as query parameters, in a stable order (also the query key's identity). */
export function actFiltersToParams(f: ActFilters): URLSearchParams {
  const p = new URLSearchParams();
  if (f.operator) p.set('operator', f.operator);
  if (f.act) p.set('act', f.act);
  if (f.order) p.set('order', f.order);
  return p;
}
