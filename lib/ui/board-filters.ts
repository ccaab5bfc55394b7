/**
 * The board's filters as they live in the URL (`?q=`, the board query of lib/query/query.ts), and
 * as the query key and the API's query string. Shared by the browser (lib/client/api.ts) and the
 * board page's server render (app/page.tsx), so both ask the server for the same board.
 */
import type { BoardFilters } from '@/lib/api/types';
import { printQuery, queryOfParams } from '../query/query';

/**
 * Board filters from URL search parameters: `q` as written, followed by a term for each of the
 * older parameters still in the URL (`?agent=fang&state=blocked` reads as
 * `agent:fang state:blocked`, so old links keep working). A query that does not parse is kept
 * as it is: the query bar shows why, and the server refuses it saying the same.
 */
export function parseFilters(params: { get(name: string): string | null }): BoardFilters {
  const q = (params.get('q') ?? '').trim();
  const aliases = (['agent', 'state', 'flag'] as const).map((k) => [k, (params.get(k) ?? '').trim()] as const).filter(([, v]) => v !== '');
  if (aliases.length === 0) return q ? { q } : {};
  const parsed = queryOfParams({ q, ...Object.fromEntries(aliases) });
  const text = parsed.ok ? printQuery(parsed.terms) : [q, ...aliases.map(([k, v]) => `${k}:${v}`)].filter(Boolean).join(' ');
  return text ? { q: text } : {};
}

/** Filters as query parameters, in a stable order (also the query key's identity). */
export function filtersToParams(f: BoardFilters): URLSearchParams {
  const p = new URLSearchParams();
  if (f.q) p.set('q', f.q);
  return p;
}

export const hasFilters = (f: BoardFilters): boolean => Boolean(f.q);
