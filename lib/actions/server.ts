import 'server-only';
/**
 * The server side of the action endpoints (POST /api/actions, /api/actions/bulk, and what the
 * dialogs ask first, GET /api/operators/:name): the request prelude they share (same origin, JSON
 * only, read-only mode, a per-operator rate limit), the context applyAction runs in on the server
 * (pins and related orders from the index), and the work of each endpoint. Refusals are thrown
 * as ClaimboardError (lib/errors.ts), which the endpoints' executor answers (lib/api/endpoint.ts).
 */
import path from 'node:path';
import type { DB } from '../index/db';
import { serverVerify } from '../index/disk/verifier';
import { readFleetRoster } from '../index/ferryman-state';
import { nudgeIndexer } from '../index/nudge';
import { anyUnverified, claimedOrdersOf, dependentsOf, indexVersion, isUnverified, pinnedKeys, progressOf, rosterOf, storedAgent } from '../index/read/queries';
import { readHealth } from '../index/health';
import { indexClockSteps, indexNowMs } from '../index/steady-clock';
import { assertChannelRoot } from '../index/disk/read-channel';
import { ledgerPathOf, RECORD_KIND, type ActionKind } from '../ledger/actions';
import type { Card } from '../ledger/derive';
import { canonicalName } from '../ledger/names';
import { shapeRecord, type SignedRecord } from '../ledger/records';
import { signingPayload } from '../ledger/payloads';
import { checkSignature, isOperator, type Roster } from '../ledger/verify';
import { CLIENT_ADDRESS_HEADER, MAX_POST_BODY_BYTES, originAllowed } from '../security';
import { settings } from '../config';
import { servedChannelOf, type ServedChannel } from '../index/store/meta';
import { ClaimboardError, HTTP_STATUS, type RefusalReason } from '../errors';
import { applyAction, type ApplyContext } from './apply';
import { ledgerPrevOf } from './write';
import { actingChannel, serverProposal } from './channel-id';

/** Why a request is refused before its content is looked at (`forbidden` or `unsupported_media_type`), or null. */
export function guardRequest(req: Request): ClaimboardError | null {
  if (settings.readOnly()) return new ClaimboardError('forbidden', 'this dashboard is read-only (CLAIMBOARD_READ_ONLY=1): no action is accepted', { reasonCode: 'read_only' });
  const type = req.headers.get('content-type') ?? '';
  if (!/^application\/json(\s*;|$)/i.test(type)) return new ClaimboardError('unsupported_media_type', 'actions take application/json only', { reasonCode: 'malformed' });
  const site = req.headers.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return new ClaimboardError('forbidden', `cross-origin request refused (${site})`, { reasonCode: 'cross_origin' });
  const origin = req.headers.get('origin');
  // Against the hosts the board answers to (serve sets them), not the request's own Host, which the client writes.
  if (origin && !originAllowed(origin, settings.servedHosts(), req.headers.get('host'))) return new ClaimboardError('forbidden', `cross-origin request refused (origin ${origin})`, { reasonCode: 'cross_origin' });
  return null;
}

const WINDOW_MS = 60_000;
/** Verified action requests per operator a minute. */
const MAX_PER_SIGNER = 30;
/** Action requests refused before their signer was verified, per client address a minute; past it the address's requests are not read. */
const MAX_UNVERIFIED_PER_ADDRESS = 120;
const recent = new Map<string, number[]>();

/** A sliding-window limit on `key`: the seconds to wait when `max` were spent in the last minute, or 0 (and, with `spend`, one more is spent). */
function limited(key: string, max: number, nowMs: number, spend: boolean): number {
  // Many addresses (or names) seen once each: forget those whose minute is over.
  if (recent.size > 10_000) for (const [k, l] of recent) if (nowMs - (l[l.length - 1] ?? 0) >= WINDOW_MS) recent.delete(k);
  const list = (recent.get(key) ?? []).filter((t) => nowMs - t < WINDOW_MS);
  if (list.length >= max) {
    recent.set(key, list);
    return Math.ceil((WINDOW_MS - (nowMs - (list[0] ?? nowMs))) / 1000);
  }
  if (spend) list.push(nowMs);
  if (list.length > 0) recent.set(key, list);
  else recent.delete(key);
  return 0;
}

/** Per-operator rate limit on verified action requests: at most 30 a minute. Returns the seconds to wait, or 0. */
export function rateLimited(operator: string, nowMs: number): number {
  return limited(`signer ${canonicalName(operator)}`, MAX_PER_SIGNER, nowMs, true);
}

/** The client's address as the web server saw the connection (bin/web.ts sets it), or 'unknown'. */
function clientOf(req: Request): string {
  return req.headers.get(CLIENT_ADDRESS_HEADER) ?? 'unknown';
}

/** The body as text, at most MAX_POST_BODY_BYTES read; over it, ClaimboardError `too_large`. */
async function cappedBody(req: Request): Promise<string> {
  const tooLarge = () => new ClaimboardError('too_large', `the body is over ${MAX_POST_BODY_BYTES} bytes`, { reasonCode: 'malformed' });
  if (Number(req.headers.get('content-length') ?? 0) > MAX_POST_BODY_BYTES) throw tooLarge();
  const reader = req.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > MAX_POST_BODY_BYTES) {
      await discardRest(reader, MAX_POST_BODY_BYTES);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Reads the rest of a refused body and lets it go, up to `max` more bytes, then stops reading.
 * A client still sending when the server closes a connection it has not read to the end gets a
 * reset, which can reach it before the 413 does; read to the end, it gets the 413.
 */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, max: number): Promise<void> {
  for (let left = max; left > 0; ) {
    const { done, value } = await reader.read();
    if (done) return;
    left -= value.byteLength;
  }
  await reader.cancel().catch(() => {});
}

/** How deep JSON may nest in an action request (a record is a few levels; the deepest legitimate request is under 10). */
const MAX_JSON_DEPTH = 64;

/** Whether `text` nests arrays and objects deeper than `max` (strings skipped), scanned without recursion. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** An action's signed record, shaped (no signature checked yet), or a `bad_request` error. */
export function signedRecordOf(action: unknown): SignedRecord {
  const a = action as { action?: unknown; record?: unknown } | null;
  const kind = typeof a?.action === 'string' && Object.hasOwn(RECORD_KIND, a.action) ? RECORD_KIND[a.action as ActionKind] : undefined;
  if (!kind || typeof a?.record !== 'object' || a.record === null) throw new ClaimboardError('bad_request', 'an action names its action (requeue, retire, reopen, ack, supersede) and carries its signed record', { reasonCode: 'malformed' });
  const shaped = shapeRecord(kind, new TextEncoder().encode(JSON.stringify(a.record)));
  if (!shaped.ok) throw new ClaimboardError('bad_request', `the ${kind} record is not valid: ${shaped.detail}`, { reasonCode: 'malformed' });
  return shaped.record as SignedRecord;
}

/**
 * The operator who signed `r`, checked against the index's roster (its pinned keys and
 * operators), or a `forbidden` error: one signature check, before any work that grows with what
 * the request names.
 */
export function verifiedSigner(roster: Roster, r: SignedRecord): string {
  const signer = canonicalName(r.signed_by ?? '');
  const check = checkSignature(r.signed_by, r.signature, () => signingPayload(r), roster, serverVerify);
  if (check !== 'valid') throw new ClaimboardError('forbidden', `the ${r.kind} record's signature: ${check.replace('_', ' ')}${r.signed_by ? ` (signed_by ${signer})` : ''}`, { reasonCode: 'bad_signature' });
  if (!isOperator(roster, signer)) throw new ClaimboardError('forbidden', `${signer} is not an operator of this channel`, { reasonCode: 'not_operator' });
  return signer;
}

/**
 * The channel an act is applied to (one of those served: lib/api/acts.ts picks it): its name,
 * its index (ClaimboardError `index_unavailable` when it cannot be opened), its index file (its
 * health is named by it; null when the index was given without one) and its operators by
 * configuration (operatorsOf).
 */
export interface ActChannel {
  readonly name: string;
  db(): DB;
  readonly dbFile: string | null;
  readonly operators: readonly string[];
  /** The name nudges of its writes carry (a serve of several channels), or null (a serve of one takes plain paths). */
  readonly nudgeAs: string | null;
}

/** What the indexer of `ch` recorded of it (its root and stale_after). */
function servedOf(ch: ActChannel): ServedChannel {
  return servedChannelOf(ch.db());
}

/**
 * The context of an action on the server in channel `ch`: the channel and its stale_after as
 * its index serves them, pins and related orders from that index, its configured operators.
 * ClaimboardError `index_unavailable` while the index names no channel yet.
 */
export function serverContext(ch: ActChannel, nowMs: number): ApplyContext {
  const db = ch.db();
  const served = servedOf(ch);
  const root = served.root;
  if (!root) throw new ClaimboardError('index_unavailable', 'the index has not recorded the channel it serves yet: no action is accepted until it has', { reasonCode: 'index_unavailable' });
  const pins = pinnedKeys(db);
  const ferrymanState = settings.ferrymanState();
  return {
    root,
    nowMs,
    clockSteps: indexClockSteps(db),
    knownArrival: (rel) => db.prepare('SELECT stat, arrival_ms FROM files WHERE path = ?').get(rel) as { stat: string; arrival_ms: number } | undefined,
    staleAfterMs: served.staleAfterMs,
    operators: ch.operators,
    proposedChannel: serverProposal(),
    pins,
    ...(ferrymanState ? { fleetAgents: readFleetRoster(ferrymanState) } : {}),
    verify: serverVerify,
    related: {
      dependentsOf: (id) => dependentsOf(db, id),
      claimsOf: (agent) => claimedOrdersOf(db, agent),
    },
  };
}

/**
 * The prelude of both action endpoints, in this order: the guards (guardRequest); the client
 * address's budget of refused requests; the body (at most MAX_POST_BODY_BYTES, nested at most
 * MAX_JSON_DEPTH) as JSON; its shape (`parse`, which throws ClaimboardError `bad_request`); the
 * signer of every action `actionsOf` lists, verified against the index's roster; then the
 * verified signers' rate limits. A request refused before its signer is verified spends its
 * address's budget, never an operator's. The channel acted on (`chOf`) is found once the records
 * are read (finding it may need the index: a malformed request is refused without it), then
 * `check` (e.g. that every action names that channel); its folder is not looked at here while
 * its index cannot say where it is. Returns the parsed body and the channel; throws ClaimboardError.
 */
export async function actionRequest<T>(
  req: Request,
  parse: (body: unknown) => T,
  actionsOf: (parsed: T) => readonly unknown[],
  chOf: () => ActChannel,
  check: (parsed: T, ch: ActChannel) => void = () => {},
): Promise<{ parsed: T; ch: ActChannel }> {
  const guard = guardRequest(req);
  if (guard) throw guard;
  const client = clientOf(req);
  const addressKey = `address ${client}`;
  const held = limited(addressKey, MAX_UNVERIFIED_PER_ADDRESS, Date.now(), false);
  if (held > 0) throw new ClaimboardError('too_many_requests', `too many refused action requests from ${client}: wait ${held} s`, { retryAfterS: held, reasonCode: 'rate_limited' });
  // The channel, when it can be found before the body is read (its index is open): a missing
  // folder then refuses the act at once. Otherwise it is found again once the records are read,
  // and its refusal said there.
  let early: ActChannel | null;
  try {
    early = chOf();
  } catch {
    early = null;
  }
  if (early) refuseGone(early);
  let parsed: T;
  let ch: ActChannel;
  let signers: string[];
  try {
    const text = await cappedBody(req);
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new ClaimboardError('bad_request', `the body nests deeper than ${MAX_JSON_DEPTH} levels`, { reasonCode: 'malformed' });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ClaimboardError('bad_request', 'the body is not JSON', { reasonCode: 'malformed' });
    }
    parsed = parse(body);
    const records = actionsOf(parsed).map(signedRecordOf);
    ch = early ?? chOf();
    check(parsed, ch);
    if (!early) refuseGone(ch);
    let db: DB;
    try {
      db = ch.db();
    } catch (e) {
      if (e instanceof ClaimboardError && e.code === 'index_unavailable') throw new ClaimboardError('index_unavailable', e.message, { reasonCode: 'index_unavailable' });
      throw e;
    }
    const { roster } = rosterOf(db, indexVersion(db));
    signers = [...new Set(records.map((r) => verifiedSigner(roster, r)))];
  } catch (e) {
    if (e instanceof ClaimboardError && e.code !== 'index_unavailable') limited(addressKey, MAX_UNVERIFIED_PER_ADDRESS, Date.now(), true);
    throw e;
  }
  for (const signer of signers) {
    const wait = rateLimited(signer, Date.now());
    if (wait > 0) throw new ClaimboardError('too_many_requests', `too many actions by ${signer}: wait ${wait} s`, { retryAfterS: wait, reasonCode: 'rate_limited' });
  }
  return { parsed, ch };
}

/** Refuses an act on `ch` while its folder is missing (503 `index_unavailable`). */
function refuseGone(ch: ActChannel): void {
  const gone = channelGone(rootIfIndexed(ch), ch.dbFile);
  if (gone) throw new ClaimboardError('index_unavailable', `the channel folder is missing (${gone}): no action is accepted until it is back and indexed again`, { reasonCode: 'index_unavailable' });
}

/** The root of `ch` as its index recorded it, or null while the index cannot say. */
function rootIfIndexed(ch: ActChannel): string | null {
  try {
    return servedOf(ch).root;
  } catch (e) {
    if (e instanceof ClaimboardError) return null;
    throw e;
  }
}

/**
 * Why the channel folder cannot take an action now, or null: it is not at `root` (or not a
 * channel), or the indexer says it went missing and has not indexed it since it came back (the
 * health file of its index `dbFile`, lib/index/health.ts): an action checked against a board
 * that is not the folder's must not be written.
 */
function channelGone(root: string | null, file: string | null): string | null {
  if (root) {
    try {
      assertChannelRoot(root);
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }
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
    return new ClaimboardError('refused', `${id}'s card is not verified yet: the index showed the board before checking every signature and is checking them now${done}; its card may show a forged record. Try again once the card no longer says unverified.`, { reasonCode: 'unverified' });
  if (id === null && expect?.retire !== undefined)
    return new ClaimboardError('refused', `the index is still checking the signatures behind the board${done}, and the orders a retirement releases are read from it; try again once the board says every signature is checked.`, { reasonCode: 'unverified' });
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
 * indexer what was written. Throws ClaimboardError with the refusal's code and reason, the
 * current card when the refusal has one (a conflict's), and for an act partly written the paths
 * that were written and those that were not (the indexer is told of those written).
 */
export function applyOne(ch: ActChannel, body: unknown): Applied {
  const db = ch.db();
  const wait = unverifiedRefusal(db, body);
  if (wait) throw wait;
  const res = applyAction(body, serverContext(ch, indexNowMs(db)));
  if (res.status !== 201) {
    if (res.written) nudgeIndexer(res.written, undefined, ch.nudgeAs ?? undefined);
    const partly = res.written ? { written: res.written, not_written: res.not_written ?? [] } : {};
    throw new ClaimboardError(res.code, res.reason, { reasonCode: res.reason_code, ...(res.card || res.written ? { detail: { ...(res.card ? { card: res.card } : {}), ...partly } } : {}) });
  }
  nudgeIndexer(res.written, undefined, ch.nudgeAs ?? undefined);
  return res;
}

/** One action's outcome in a bulk answer: its HTTP status (201 written), and the paths written or the reason and its code (with the paths written of an act partly written). */
export interface BulkActionResult {
  readonly order_id: string | null;
  readonly status: number;
  readonly written?: readonly string[];
  readonly not_written?: readonly string[];
  readonly reason?: string;
  readonly reason_code?: RefusalReason;
}

/**
 * POST /api/actions/bulk's work: applies the actions in order, each as POST /api/actions would;
 * the ledger lines are chained, so after the first refusal the rest are not applied (a
 * conflict, `chain_broken`: "sign again").
 */
export function applyBulk(ch: ActChannel, actions: readonly unknown[]): BulkActionResult[] {
  const db = ch.db();
  const results: BulkActionResult[] = [];
  let broken: string | null = null;
  for (const a of actions) {
    const id = (a as { expect?: { order?: { order_id?: string } } } | null)?.expect?.order?.order_id ?? null;
    if (broken) {
      results.push({ order_id: id, status: HTTP_STATUS.conflict, reason: `not applied: ${broken}; sign again`, reason_code: 'chain_broken' });
      continue;
    }
    const wait = unverifiedRefusal(db, a);
    if (wait) {
      results.push({ order_id: id, status: HTTP_STATUS[wait.code], reason: wait.message, ...(wait.reasonCode ? { reason_code: wait.reasonCode } : {}) });
      broken = `the ledger chain stopped at ${id ?? 'an earlier action'}`;
      continue;
    }
    const res = applyAction(a, serverContext(ch, indexNowMs(db)));
    if (res.status === 201) {
      nudgeIndexer(res.written, undefined, ch.nudgeAs ?? undefined);
      results.push({ order_id: id, status: 201, written: res.written });
    } else {
      if (res.written) nudgeIndexer(res.written, undefined, ch.nudgeAs ?? undefined);
      results.push({ order_id: id, status: res.status, reason: res.reason, reason_code: res.reason_code, ...(res.written ? { written: res.written, not_written: res.not_written ?? [] } : {}) });
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
  /** Why the ledger file is not read (a symlink, not a regular file, over 1 MiB), or null: no action can chain to it. */
  readonly ledger_problem: string | null;
  /** The channel an act must be signed for (lib/ledger/channel-binding.ts), or null when none can be (`channel_problem` says why). */
  readonly channel: string | null;
  readonly channel_problem: string | null;
  /** True when the folder names no channel yet: the next act writes claimboard.channel.json with its own files. */
  readonly channel_new: boolean;
  readonly actions_enabled: boolean;
  readonly demo_key_available: boolean;
}

/**
 * GET /api/operators/:name's answer for the canonical `name` in channel `ch`: whether it is in the roster and an
 * operator (the index's agents row), its pinned key, the hash of the last line of its ledger file
 * as it is on disk now (`ledger_prev`: what its next signed line must chain to), the channel its
 * next act must be signed for, and whether actions and the demo key are offered.
 */
export function operatorInfo(ch: ActChannel, name: string): OperatorAnswer {
  const n = canonicalName(name);
  const summary = storedAgent(ch.db(), n);
  const root = servedOf(ch).root ?? '';
  const { prev, refused } = ledgerPrevOf(path.join(root, ledgerPathOf(n)));
  const channel = root ? actingChannel(root, serverProposal()) : { problem: 'no channel is served (the index has not recorded one yet)' };
  return {
    name: n,
    in_roster: summary !== null,
    is_operator: summary?.is_operator ?? false,
    public_key: summary?.public_key ?? null,
    ledger_prev: prev,
    ledger_problem: refused ?? null,
    channel: 'id' in channel ? channel.id : null,
    channel_problem: 'problem' in channel ? channel.problem : null,
    channel_new: 'create' in channel && channel.create,
    actions_enabled: !settings.readOnly(),
    demo_key_available: Boolean(settings.demoOperatorKey()),
  };
}
