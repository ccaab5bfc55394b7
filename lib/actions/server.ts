import 'server-only';
/**
 * What the action endpoints share: the request guards (same origin, JSON only, read-only mode,
 * a per-operator rate limit) and the context applyAction runs in on the server (pins and
 * related orders from the index).
 */
import type { DB } from '../index/db';
import { nodeVerify } from '../index/node-verify';
import { readFleetRoster } from '../index/ferryman-state';
import { canonicalName } from '../ledger/names';
import { settings } from '../config';
import type { ApplyContext } from './apply';

/** Why a request is refused before its content is looked at, or null. */
export function guardRequest(req: Request): { status: 400 | 403 | 415; reason: string } | null {
  if (settings.readOnly()) return { status: 403, reason: 'this dashboard is read-only (CLAIMBOARD_READ_ONLY=1): no action is accepted' };
  const type = req.headers.get('content-type') ?? '';
  if (!/^application\/json(\s*;|$)/i.test(type)) return { status: 415, reason: 'actions take application/json only' };
  const site = req.headers.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return { status: 403, reason: `cross-origin request refused (${site})` };
  const origin = req.headers.get('origin');
  if (origin) {
    const host = req.headers.get('host');
    let originHost: string | null;
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = null;
    }
    if (!host || originHost !== host) return { status: 403, reason: `cross-origin request refused (origin ${origin})` };
  }
  return null;
}

const WINDOW_MS = 60_000;
const MAX_PER_WINDOW = 30;
const recent = new Map<string, number[]>();

/** Per-operator rate limit: at most 30 action requests a minute. Returns the seconds to wait, or 0. */
export function rateLimited(operator: string, nowMs: number): number {
  const key = canonicalName(operator);
  const list = (recent.get(key) ?? []).filter((t) => nowMs - t < WINDOW_MS);
  if (list.length >= MAX_PER_WINDOW) {
    recent.set(key, list);
    return Math.ceil((WINDOW_MS - (nowMs - (list[0] ?? nowMs))) / 1000);
  }
  list.push(nowMs);
  recent.set(key, list);
  return 0;
}

/** The context of an action on the server: the channel and window from the environment, pins and related orders from the index. */
export function serverContext(db: DB, nowMs: number): ApplyContext {
  const root = settings.channel();
  if (!root) throw new Error('CLAIMBOARD_CHANNEL is not set: start the dashboard with `claimboard serve`');
  const pins = new Map((db.prepare('SELECT name, public_key FROM pins').all() as { name: string; public_key: string }[]).map((r) => [r.name, r.public_key]));
  const dependents = db.prepare("SELECT c.order_id AS id FROM cards c, json_each(c.card, '$.depends_on') d WHERE d.value = ?");
  const claims = db.prepare('SELECT DISTINCT order_id AS id FROM holds WHERE agent = ?');
  const ferrymanState = settings.ferrymanState();
  return {
    root,
    nowMs,
    staleAfterMs: settings.staleAfterMs(),
    operators: settings.operators(),
    pins,
    ...(ferrymanState ? { fleetAgents: readFleetRoster(ferrymanState) } : {}),
    verify: nodeVerify,
    related: {
      dependentsOf: (id) => (dependents.all(id) as { id: string }[]).map((r) => r.id),
      claimsOf: (agent) => (claims.all(agent) as { id: string }[]).map((r) => r.id),
    },
  };
}
