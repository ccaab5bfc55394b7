import 'server-only';
/**
 * The one shape of every HTTP endpoint of the web process (/api/*, /metrics): a method and a
 * path, a zod schema of the request, and `execute(ctx, request)`. One executor runs them all:
 * the read token, the request's parse (a 400 with zod's reason), `execute`, and a
 * ClaimboardError it throws answered with its code's status (lib/errors.ts); anything else
 * thrown goes on (a 500: a programming error). It answers an Answer (answer.ts), which two thin
 * adapters send: Next.js's route handlers (next-route.ts) and the web process's fast path
 * (fast-path.ts). The endpoints live beside this file, one file per resource.
 */
import type { z } from 'zod';
import { readDb, type DB } from '../index/db';
import { servedChannelOf, type ServedChannel } from '../index/store/meta';
import { indexNowMs } from '../index/steady-clock';
import { settings } from '../config';
import { cookieValue, hasReadToken, TOKEN_COOKIE } from '../security';
import { ClaimboardError, HTTP_STATUS } from '../errors';
import type { Answer } from './answer';
import { servedChannels, type ServedChannels } from './channels';

/**
 * What an endpoint's request schema reads: the URL's query parameters and the path's
 * parameters as one object. Query parameters with an empty value, and the read token's `token`,
 * are left out (an empty parameter means "not given"); a path parameter wins over a query
 * parameter of its name. Repeated query parameters: the last one.
 */
export type RawRequest = Readonly<Record<string, string>>;

/** What `execute` works with. The index is opened on first use. */
export interface EndpointContext {
  /** The read-only index (lib/index/db.ts readDb); ClaimboardError `index_unavailable` (503) when it cannot be opened. */
  db(): DB;
  /** "Now" on the index's clock (lib/index/steady-clock.ts: this machine's wall clock less the steps the indexer saw), ms. */
  nowMs(): number;
  /** The channel this web process serves and its stale_after, as the index's indexer recorded them: for reads and acts alike. */
  served(): ServedChannel;
  /** The channels this web process serves (channels.ts): the registry's, or the one of `db()`. Read once per request. */
  channels(): ServedChannels;
  /** Whether operator acts are refused (CLAIMBOARD_READ_ONLY=1). */
  readonly readOnly: boolean;
  /** A request header by name, as Headers.get gives it. */
  header(name: string): string | null;
  /** The URL's query string as sent (`?q=...`, or ''): what the read answers are cached by. */
  readonly search: string;
  /** The Fetch API request, on Next.js's side only (the action endpoints read their body from it; the event stream, its abort signal). */
  readonly request: Request | null;
}

/**
 * A body an endpoint answers with as it is, rather than as JSON: `bytes` of `contentType` (a
 * cached answer's ready JSON, /metrics' text) or a `stream` (the event stream) with its headers.
 */
export class Raw {
  private constructor(
    readonly contentType: string,
    readonly bytes: Buffer | null,
    readonly stream: ReadableStream<Uint8Array> | null,
    readonly headers: Readonly<Record<string, string>>,
  ) {}
  /** Ready bytes (default: JSON). */
  static bytes(bytes: Buffer, contentType = 'application/json'): Raw {
    return new Raw(contentType, bytes, null, {});
  }
  /** A streamed body with the headers it is answered with (Next.js's adapter only). */
  static stream(stream: ReadableStream<Uint8Array>, headers: Readonly<Record<string, string>>): Raw {
    return new Raw(headers['Content-Type'] ?? 'application/octet-stream', null, stream, headers);
  }
}

/** One endpoint: request type `Req`, meta (method, path pattern, success status) and its work. */
export interface Endpoint<Req> {
  readonly method: 'GET' | 'POST';
  /** The path, path parameters as `:name` (`/api/orders/:id`). */
  readonly path: string;
  /** Parses the RawRequest; an issue on a path parameter is said by its message alone (the message names the value). */
  readonly request: z.ZodType<Req>;
  /** The status of an answer (default 200). */
  readonly status?: number;
  /** The work: the answer's body (JSON-encoded, unless Raw); throws ClaimboardError to refuse. */
  execute(ctx: EndpointContext, req: Req): unknown;
}

/** An endpoint, typed by its schema. */
export function defineEndpoint<Req>(e: Endpoint<Req>): Endpoint<Req> {
  return e;
}

/** The names of an endpoint's path parameters (`/api/orders/:id`: `id`). */
export function pathParams(e: Pick<Endpoint<unknown>, 'path'>): string[] {
  return [...e.path.matchAll(/:(\w+)/g)].map((m) => m[1] as string);
}

/** An answer whose body is a stream (Next.js's adapter sends it; the fast path never meets one). */
export interface StreamAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly stream: ReadableStream<Uint8Array>;
}

/** What the executor is given of a request, by either adapter. */
export interface RequestInput {
  /** The URL as sent (`/api/board?q=...`, or absolute). */
  readonly url: string;
  readonly header: (name: string) => string | null;
  /** The path's parameters, decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly request?: Request;
}

/**
 * The answer to an error: the JSON body `{error: code, reason_code?, message, ...detail}` (the
 * reason code only for a refused act) with the code's status (lib/errors.ts HTTP_STATUS), never
 * cached, with Retry-After when the error says how long to wait.
 */
export function errorAnswer(e: ClaimboardError): Answer {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
  if (e.retryAfterS !== undefined) headers['Retry-After'] = String(e.retryAfterS);
  return { status: HTTP_STATUS[e.code], headers, body: Buffer.from(JSON.stringify({ error: e.code, ...(e.reasonCode ? { reason_code: e.reasonCode } : {}), message: e.message, ...e.detail })) };
}

/** The answer to a request without the read token (the same as the proxy's for pages). */
export const READ_TOKEN_REQUIRED: Answer = {
  status: 401,
  headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
  body: Buffer.from('claimboard: a read token is required (open the URL with ?token=<CLAIMBOARD_READ_TOKEN>)\n'),
};

/**
 * Whether a request may read: no read token configured, or it carries it (`Authorization:
 * Bearer`, the cookie, or `?token=`; lib/security.ts). The proxy does not run for /api routes
 * nor /metrics (it costs about a quarter of a cheap API request), so the executor checks it,
 * before anything else.
 */
function mayRead(url: string, header: (name: string) => string | null): boolean {
  const token = settings.readToken();
  if (!token) return true;
  const q = url.indexOf('?');
  const query = q === -1 ? null : new URLSearchParams(url.slice(q)).get('token');
  return hasReadToken(token, { headers: { get: header }, cookie: cookieValue(header('cookie'), TOKEN_COOKIE), query });
}

/** The RawRequest of a URL and path parameters (RawRequest says the rules). */
export function rawRequestOf(url: string, params: Readonly<Record<string, string>>): RawRequest {
  const q = url.indexOf('?');
  const out: Record<string, string> = {};
  if (q !== -1) for (const [k, v] of new URLSearchParams(url.slice(q))) if (k !== 'token') out[k] = v;
  for (const k of Object.keys(out)) if (out[k] === '') delete out[k];
  return { ...out, ...params };
}

/** The reason a request does not parse, as the 400's message: `key: reason; ...`, a path parameter's reason alone. */
export function reasonOf(issues: readonly z.core.$ZodIssue[], params: readonly string[]): string {
  return issues.map((i) => (params.includes(String(i.path[0])) ? i.message : `${i.path.join('.')}: ${i.message}`)).join('; ');
}

/**
 * The context of one request: the index opened at the first `db()` (the process's shared
 * read-only connection), its clock and served channel read from it.
 */
export function contextOf(input: Pick<RequestInput, 'url' | 'header' | 'request'>, open: () => DB = readDb): EndpointContext {
  const q = input.url.indexOf('?');
  let db: DB | null = null;
  let channels: ServedChannels | null = null;
  const ctx: EndpointContext = {
    db: () => {
      if (db) return db;
      try {
        db = open();
      } catch (e) {
        throw new ClaimboardError('index_unavailable', `the index is not available yet: ${e instanceof Error ? e.message : String(e)}`);
      }
      return db;
    },
    nowMs: () => indexNowMs(ctx.db()),
    served: () => servedChannelOf(ctx.db()),
    channels: () => (channels ??= servedChannels(() => ctx.db(), () => ctx.served().root)),
    readOnly: settings.readOnly(),
    header: input.header,
    search: q === -1 ? '' : input.url.slice(q),
    request: input.request ?? null,
  };
  return ctx;
}

/** The answer of `out`, what `execute` returned, with `status`. */
function answerOf(out: unknown, status: number): Answer | StreamAnswer {
  if (out instanceof Raw) {
    if (out.stream) return { status, headers: out.headers, stream: out.stream };
    return { status, headers: { 'Content-Type': out.contentType, 'Cache-Control': 'no-store' }, body: out.bytes ?? Buffer.alloc(0) };
  }
  return { status, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }, body: Buffer.from(JSON.stringify(out)) };
}

/** A ClaimboardError as its answer; anything else thrown goes on. */
function refusal(e: unknown): Answer {
  if (e instanceof ClaimboardError) return errorAnswer(e);
  throw e;
}

/** How runEndpoint runs: the index it opens (default the process's, readDb), and whether the read token was checked already (a page's server render: the proxy checked it). */
export interface RunOptions {
  readonly open?: () => DB;
  readonly tokenChecked?: boolean;
}

/**
 * Runs `endpoint` on a request: 401 without the read token (the endpoint does not run), 400
 * when the request does not parse, else what `execute` returns (synchronously when it does),
 * a ClaimboardError answered as errorAnswer. Anything else thrown goes on.
 */
export function runEndpoint<Req>(endpoint: Endpoint<Req>, input: RequestInput, opts: RunOptions = {}): Answer | StreamAnswer | Promise<Answer | StreamAnswer> {
  if (!opts.tokenChecked && !mayRead(input.url, input.header)) return READ_TOKEN_REQUIRED;
  const parsed = endpoint.request.safeParse(rawRequestOf(input.url, input.params));
  if (!parsed.success) return errorAnswer(new ClaimboardError('bad_request', reasonOf(parsed.error.issues, pathParams(endpoint))));
  const status = endpoint.status ?? 200;
  let out: unknown;
  try {
    out = endpoint.execute(contextOf(input, opts.open), parsed.data);
  } catch (e) {
    return refusal(e);
  }
  return out instanceof Promise ? out.then((v: unknown) => answerOf(v, status), refusal) : answerOf(out, status);
}

/**
 * What a GET endpoint with no path parameter answers for `search` (`''` or `?q=...`), parsed,
 * for a page's server render (the page arrives with its data; the proxy checked the read token
 * for it); null when it answers an error (the page then asks the API itself and shows it).
 */
export function answerForPage<Req>(endpoint: Endpoint<Req>, search: string): unknown {
  const a = runEndpoint(endpoint, { url: `${endpoint.path}${search}`, header: () => null, params: {} }, { tokenChecked: true });
  if (a instanceof Promise || 'stream' in a) throw new Error(`${endpoint.path} does not answer synchronously with bytes`);
  return a.status === 200 ? (JSON.parse(a.body.toString('utf8')) as unknown) : null;
}
