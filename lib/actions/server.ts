import 'server-only';
/**
 * The server side of the action endpoints (POST /api/actions, /api/actions/bulk, and what the
 * dialogs ask first, GET /api/operators/:name): the request prelude they share (same origin, JSON
 * only, read-only mode, a per-operator rate limit), the context applyAction runs in on the server
 * (pins and related orders from the index), and the work of each endpoint. Refusals are thrown
 * as ClaimboardError (lib/errors.ts), which the route answers with lib/api/http.ts.
 */
import path from 'node:path';
import type { DB } from '../index/db';
import { serverVerify } from '../index/verifier';
import { readFleetRoster } from '../index/ferryman-state';
import { nudgeIndexer } from '../index/nudge';
import { anyUnverified, claimedOrdersOf, dependentsOf, isUnverified, pinnedKeys, progressOf, storedAgent } from '../index/queries';
import { readHealth } from '../index/health';
import { indexClockSteps, indexNowMs } from '../index/steady-clock';
import { assertChannelRoot } from '../index/read-channel';
import { ledgerPathOf } from '../ledger/actions';
import type { Card } from '../ledger/derive';
import { canonicalName } from '../ledger/names';
import { settings } from '../config';
import { ClaimboardError, HTTP_STATUS } from '../errors';
import { applyAction, type ApplyContext } from './apply';
import { ledgerPrevOf } from './write';

/** Why a request is refused before its content is looked at (`forbidden` or `unsupported_media_type`), or null. */
export function guardRequest(req: Request): ClaimboardError | null {
  if (settings.readOnly()) return new ClaimboardError('forbidden', 'this dashboard is read-only (CLAIMBOARD_READ_ONLY=1): no action is accepted');
  const type = req.headers.get('content-type') ?? '';
  if (!/^application\/json(\s*;|$)/i.test(type)) return new ClaimboardError('unsupported_media_type', 'actions take application/json only');
  const site = req.headers.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return new ClaimboardError('forbidden', `cross-origin request refused (${site})`);
  const origin = req.headers.get('origin');
  if (origin) {
    const host = req.headers.get('host');
    let originHost: string | null;
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = null;
    }
    if (!host || originHost !== host) return new ClaimboardError('forbidden', `cross-origin request refused (origin ${origin})`);
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
  const pins = pinnedKeys(db);
  const ferrymanState = settings.ferrymanState();
  return {
    root,
    nowMs,
    clockSteps: indexClockSteps(db),
    knownArrival: (rel) => db.prepare('SELECT stat, arrival_ms FROM files WHERE path = ?').get(rel) as { stat: string; arrival_ms: number } | undefined,
    staleAfterMs: settings.staleAfterMs(),
    operators: settings.operators(),
    pins,
    ...(ferrymanState ? { fleetAgents: readFleetRoster(ferrymanState) } : {}),
    verify: serverVerify,
    related: {
      dependentsOf: (id) => dependentsOf(db, id),
      claimsOf: (agent) => claimedOrdersOf(db, agent),
    },
  };
}

/** The operator an action request names as its signer (`record.signed_by`), or '' when it names none. */
export function signerOfAction(action: unknown): string {
  const by = (action as { record?: { signed_by?: unknown } } | null)?.record?.signed_by;
  return typeof by === 'string' ? by : '';
}

/**
 * The prelude of both action endpoints, in this order: the guards (guardRequest), the body as
 * JSON, its shape (`parse`, which throws ClaimboardError `bad_request`), and the rate limit of
 * the operator `signerOf` finds in it (this machine's clock). Returns the parsed body; throws
 * ClaimboardError `forbidden`, `unsupported_media_type`, `bad_request` or `too_many_requests`
 * (with the seconds to wait).
 */
export async function actionRequest<T>(req: Request, parse: (body: unknown) => T, signerOf: (parsed: T) => string): Promise<T> {
  const guard = guardRequest(req);
  if (guard) throw guard;
  const gone = channelGone();
  if (gone) throw new ClaimboardError('index_unavailable', `the channel folder is missing (${gone}): no action is accepted until it is back and indexed again`);
  let body: unknown;
  try {
    body = await req.json();
  } catch {
    throw new ClaimboardError('bad_request', 'the body is not JSON');
  }
  const parsed = parse(body);
  const signer = signerOf(parsed);
  const wait = signer ? rateLimited(signer, Date.now()) : 0;
  if (wait > 0) throw new ClaimboardError('too_many_requests', `too many actions by ${signer}: wait ${wait} s`, { retryAfterS: wait });
  return parsed;
}

/**
 * Why the channel folder cannot take an action now, or null: it is not at CLAIMBOARD_CHANNEL (or
 * not a channel), or the indexer says it went missing and has not indexed it since it came back
 * (the health file, lib/index/health.ts): an action checked against a board that is not the
 * folder's must not be written.
 */
function channelGone(): string | null {
  const root = settings.channel();
  if (root) {
    try {
      assertChannelRoot(root);
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }
  const file = settings.dbFile();
  const h = file ? readHealth(file) : null;
  return h?.state === 'degraded' && h.code === 'folder_missing' ? h.reason : null;
}

/**
 * Why an action must wait for the signatures behind the board to be checked (cold-pass.ts), or
 * null: an action on an order whose card is still unverified (it may show a forged record), or a
 * retirement while any card is (the orders it releases are read from the board).
 */
export function unverifiedRefusal(db: DB, body: unknown): ClaimboardError | null {
  if (!anyUnverified(db)) return null;
  const expect = (body as { expect?: { order?: { order_id?: unknown }; retire?: unknown } } | null)?.expect;
  const id = typeof expect?.order?.order_id === 'string' ? expect.order.order_id : null;
  const p = progressOf(db);
  const done = p.signatures_to_check ? ` (${(p.signatures_checked ?? 0).toLocaleString('en')} of ${p.signatures_to_check.toLocaleString('en')} checked)` : '';
  if (id !== null && isUnverified(db, id))
    return new ClaimboardError('refused', `${id}'s card is not verified yet: the index showed the board before checking every signature and is checking them now${done}; its card may show a forged record. Try again once the card no longer says unverified.`);
  if (id === null && expect?.retire !== undefined)
    return new ClaimboardError('refused', `the index is still checking the signatures behind the board${done}, and the orders a retirement releases are read from it; try again once the board says every signature is checked.`);
  return null;
}

/** What POST /api/actions answers with 201. */
export interface Applied {
  readonly status: 201;
  readonly written: readonly string[];
  readonly card?: Card;
  readonly orders?: readonly Card[];
}

/**
 * POST /api/actions' work: applies one action (applyAction, in serverContext) and tells the
 * indexer what was written. Throws ClaimboardError with the refusal's code and reason, and the
 * current card when the refusal has one (a conflict's).
 */
export function applyOne(db: DB, body: unknown): Applied {
  const wait = unverifiedRefusal(db, body);
  if (wait) throw wait;
  const res = applyAction(body, serverContext(db, indexNowMs(db)));
  if (res.status !== 201) throw new ClaimboardError(res.code, res.reason, res.card ? { detail: { card: res.card } } : {});
  nudgeIndexer(res.written);
  return res;
}

/** One action's outcome in a bulk answer: its HTTP status (201 written), and the paths written or the reason. */
export interface BulkActionResult {
  readonly order_id: string | null;
  readonly status: number;
  readonly written?: readonly string[];
  readonly reason?: string;
}

/**
 * POST /api/actions/bulk's work: applies the actions in order, each as POST /api/actions would;
 * the ledger lines are chained, so after the first refusal the rest are not applied (a
 * conflict: "sign again").
 */
export function applyBulk(db: DB, actions: readonly unknown[]): BulkActionResult[] {
  const results: BulkActionResult[] = [];
  let broken: string | null = null;
  for (const a of actions) {
    const id = (a as { expect?: { order?: { order_id?: string } } } | null)?.expect?.order?.order_id ?? null;
    if (broken) {
      results.push({ order_id: id, status: HTTP_STATUS.conflict, reason: `not applied: ${broken}; sign again` });
      continue;
    }
    const wait = unverifiedRefusal(db, a);
    if (wait) {
      results.push({ order_id: id, status: HTTP_STATUS[wait.code], reason: wait.message });
      broken = `the ledger chain stopped at ${id ?? 'an earlier action'}`;
      continue;
    }
    const res = applyAction(a, serverContext(db, indexNowMs(db)));
    if (res.status === 201) {
      nudgeIndexer(res.written);
      results.push({ order_id: id, status: 201, written: res.written });
    } else {
      results.push({ order_id: id, status: res.status, reason: res.reason });
      broken = `the ledger chain stopped at ${id ?? 'an earlier action'}`;
    }
  }
  return results;
}

/** GET /api/operators/:name (lib/client/keys.ts OperatorInfo reads it). */
export interface OperatorAnswer {
  readonly name: string;
  readonly in_roster: boolean;
  readonly is_operator: boolean;
  readonly public_key: string | null;
  readonly ledger_prev: string;
  readonly actions_enabled: boolean;
  readonly demo_key_available: boolean;
}

/**
 * GET /api/operators/:name's answer for the canonical `name`: whether it is in the roster and an
 * operator (the index's agents row), its pinned key, the hash of the last line of its ledger file
 * as it is on disk now (`ledger_prev`: what its next signed line must chain to), and whether
 * actions and the demo key are offered.
 */
export function operatorInfo(db: DB, name: string): OperatorAnswer {
  const n = canonicalName(name);
  const summary = storedAgent(db, n);
  const root = settings.channel() ?? '';
  const { prev } = ledgerPrevOf(path.join(root, ledgerPathOf(n)));
  return {
    name: n,
    in_roster: summary !== null,
    is_operator: summary?.is_operator ?? false,
    public_key: summary?.public_key ?? null,
    ledger_prev: prev,
    actions_enabled: !settings.readOnly(),
    demo_key_available: Boolean(settings.demoOperatorKey()),
  };
}
