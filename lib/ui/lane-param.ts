/**
 * The lane a phone-width board shows (one lane at a time, the lanes as tabs), kept in the URL
 * beside the filters as `?lane=stale`. Needs attention is the default and has no parameter, so
 * an alert's link and a bare `/` open on it.
 */
import type { Lane } from '../ledger/derive';
import { LANES } from '../ledger/derive';

export const DEFAULT_LANE: Lane = 'attention';

/** The lane named by `?lane=`; Needs attention when it is missing or names no lane. */
export function laneFromParams(params: { get(name: string): string | null }): Lane {
  const raw = params.get('lane');
  return LANES.find((l) => l === raw) ?? DEFAULT_LANE;
}

/** The same query with `lane` set (or dropped for the default), every other parameter kept as it was. */
export function withLane(search: string, lane: Lane): string {
  const p = new URLSearchParams(search);
  if (lane === DEFAULT_LANE) p.delete('lane');
  else p.set('lane', lane);
  return p.toString();
}
