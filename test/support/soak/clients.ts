/**
 * The soak's clients of a running `claimboard serve`:
 *
 * - {@link SseClient}: one `GET /api/events` stream read as a browser's EventSource reads it
 *   (lib/client/live.ts): `hello {seq}` on each connect, `changed {seq, orders, all}` after; a
 *   closed stream reconnects after the server's `retry` (1 s), and a reconnect tells the page to
 *   refetch everything (live.ts invalidates every query on a reopen), as does `all: true`.
 * - {@link LagTracker}: what each file the fleet wrote must make the order's card show
 *   (fleet.ts `Expectation`), and when an answer of the board first showed it: the index lag,
 *   write (this machine's clock just before the write) to the answer's arrival (same clock).
 * - {@link Pollers}: N keep-alive clients polling `/api/board` and `/api/orders/<id>`; orders an
 *   event named, or with a write still unseen after a second, are fetched first.
 * - {@link FeedReader}: the index's change feed (the `changes` rows /api/events serves),
 *   copied from the database read-only every second, before the indexer trims it.
 */
import http from 'node:http';
import Database from 'better-sqlite3';
import type { Expectation, SoakWrite, SoakWriteKind } from './fleet';
import { get } from './proc';

// ---- the event stream ---------------------------------------------------------------------

/** One thing a stream client was told. `orders` null: everything (`all`, or a (re)connect's hello). */
export interface Notice {
  readonly atMs: number;
  readonly seq: number;
  readonly orders: readonly string[] | null;
  readonly kind: 'hello' | 'changed';
}

/** An `/api/events` reader that reconnects 1 s after its stream ends, until closed. */
export class SseClient {
  readonly notices: Notice[] = [];
  connects = 0;
  parseErrors = 0;
  private req: http.ClientRequest | null = null;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly port: number,
    private readonly onNotice?: (n: Notice) => void,
  ) {
    this.connect();
  }

  private connect(): void {
    if (this.closed) return;
    const req = http.request({ host: '127.0.0.1', port: this.port, path: '/api/events', agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        res.on('end', () => this.retry());
        return;
      }
      this.connects++;
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          this.frame(buf.slice(0, i));
          buf = buf.slice(i + 2);
        }
      });
      res.on('end', () => this.retry());
      res.on('error', () => this.retry());
    });
    req.on('error', () => this.retry());
    req.end();
    this.req = req;
  }

  private frame(text: string): void {
    let event = 'message';
    const data: string[] = [];
    for (const line of text.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    if (event !== 'hello' && event !== 'changed') return; // keep-alive comments, retry lines
    const atMs = Date.now();
    let n: Notice;
    try {
      const v = JSON.parse(data.join('\n')) as { seq: number; orders?: string[]; all?: boolean };
      n = event === 'hello' ? { atMs, seq: v.seq, orders: null, kind: 'hello' } : { atMs, seq: v.seq, orders: v.all ? null : (v.orders ?? []), kind: 'changed' };
    } catch {
      // live.ts treats an unreadable event as `all`
      this.parseErrors++;
      n = { atMs, seq: -1, orders: null, kind: 'changed' };
    }
    this.notices.push(n);
    this.onNotice?.(n);
  }

  private retry(): void {
    this.req = null;
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, 1000);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.req?.destroy();
  }
}

// ---- the index lag ---------------------------------------------------------------------------

interface Pending {
  readonly w: SoakWrite;
  readonly expect: Expectation;
}

interface OrderAnswer {
  readonly card: { readonly holder: string | null; readonly latest_revision: number | null };
  readonly runs: readonly { readonly agent: string; readonly run: string; readonly last_arrival_ms: number }[];
}

function shows(a: OrderAnswer, e: Expectation): boolean {
  switch (e.kind) {
    case 'exists':
      return true;
    case 'holder':
      return a.card.holder === e.agent;
    case 'not_holder':
      return a.card.holder !== e.agent;
    case 'revision':
      return (a.card.latest_revision ?? 0) >= e.atLeast;
    case 'beat':
      return a.runs.some((r) => r.agent === e.agent && r.run === e.run && r.last_arrival_ms >= e.arrivalMs);
  }
}

/** Writes waiting to be seen, per order, and the lags of those seen (ms, by write kind). */
export class LagTracker {
  private readonly pending = new Map<string, Pending[]>();
  /** Orders to fetch first: named by an event since, or with a write unseen for a second. */
  private readonly urgent = new Set<string>();
  private readonly fetchedAt = new Map<string, number>();
  readonly lags = new Map<SoakWriteKind, number[]>();
  /** Writes whose expectation a later write of the fleet made moot before it was seen (e.g. a claim released at once). */
  superseded = 0;
  tracking = false;

  /** Records a fleet write (ignored until `tracking`). */
  add(w: SoakWrite): void {
    if (!this.tracking || !w.orderId) return;
    const list = this.pending.get(w.orderId) ?? [];
    if (w.kind === 'prune') {
      this.superseded += list.length;
      this.pending.delete(w.orderId);
      this.urgent.delete(w.orderId);
      this.fetchedAt.delete(w.orderId);
      return;
    }
    if (w.kind === 'unbeat') {
      // A run's end removes its heartbeat: a rewrite not read before that can never show.
      const keep = list.filter((p) => !(p.expect.kind === 'beat' && p.w.rel === w.rel));
      this.superseded += list.length - keep.length;
      list.length = 0;
      list.push(...keep);
    }
    if (w.kind === 'release' && w.expect?.kind === 'not_holder') {
      const agent = w.expect.agent;
      const keep = list.filter((p) => !(p.expect.kind === 'holder' && p.expect.agent === agent));
      this.superseded += list.length - keep.length;
      list.length = 0;
      list.push(...keep);
    }
    if (w.expect) list.push({ w, expect: w.expect });
    if (list.length > 0) this.pending.set(w.orderId, list);
    else this.pending.delete(w.orderId);
  }

  /** An event named these orders (null: all): fetch them first. */
  notify(orders: readonly string[] | null): void {
    for (const id of orders ?? this.pending.keys()) if (this.pending.has(id)) this.urgent.add(id);
  }

  /**
   * The next order a poller should fetch, or null: one an event named since (each once), else
   * one with a write unseen for `lateMs` that was not fetched in the last `againMs`.
   */
  next(nowMs: number, lateMs = 1000, againMs = 500): string | null {
    for (const id of this.urgent) {
      this.urgent.delete(id);
      if (this.pending.has(id)) return this.fetching(id, nowMs);
    }
    for (const [id, list] of this.pending) {
      if ((this.fetchedAt.get(id) ?? 0) > nowMs - againMs) continue;
      if (list.some((p) => nowMs - p.w.startMs >= lateMs)) return this.fetching(id, nowMs);
    }
    return null;
  }

  private fetching(id: string, nowMs: number): string {
    this.fetchedAt.set(id, nowMs);
    return id;
  }

  /** An answer for `id` that arrived at `atMs` (this machine's clock): resolves what it shows. */
  saw(id: string, answer: OrderAnswer | null, atMs: number): void {
    const list = this.pending.get(id);
    if (!list || !answer) return;
    const left = list.filter((p) => {
      if (!shows(answer, p.expect)) return true;
      const l = this.lags.get(p.w.kind) ?? [];
      l.push(atMs - p.w.startMs);
      this.lags.set(p.w.kind, l);
      return false;
    });
    if (left.length) this.pending.set(id, left);
    else {
      this.pending.delete(id);
      this.fetchedAt.delete(id);
    }
  }

  /** Writes still unseen, oldest first. */
  unseen(): SoakWrite[] {
    return [...this.pending.values()].flat().map((p) => p.w).sort((a, b) => a.startMs - b.startMs);
  }

  /** Every lag (ms). */
  all(): number[] {
    return [...this.lags.values()].flat();
  }
}

// ---- the pollers ---------------------------------------------------------------------------------

export type Endpoint = 'board' | 'order';

/** N keep-alive clients: fetch what the tracker wants first, else the board or a known order every `pauseMs`. */
export class Pollers {
  readonly latency: Record<Endpoint, number[]> = { board: [], order: [] };
  /** Request latencies with this machine's clock at the answer (for windows such as a burst's). */
  readonly timeline: { atMs: number; ms: number; endpoint: Endpoint }[] = [];
  errors = 0;
  /** Connection resets retried on a new connection (see fetch). */
  resets = 0;
  readonly errorSamples: string[] = [];
  private stopped = false;
  private readonly done: Promise<void>[] = [];

  constructor(
    private readonly port: number,
    private readonly tracker: LagTracker,
    private readonly knownOrders: () => readonly string[],
    clients: number,
    private readonly pauseMs: number,
  ) {
    for (let c = 0; c < clients; c++) this.done.push(this.client(c));
  }

  private async client(c: number): Promise<void> {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let j = c;
    try {
      while (!this.stopped) {
        const urgent = this.tracker.next(Date.now());
        let id = urgent;
        let p: string;
        if (id) p = `/api/orders/${id}`;
        else if (j++ % 2 === 0) p = '/api/board';
        else {
          const known = this.knownOrders();
          id = known.length ? (known[Math.floor(Math.random() * known.length)] ?? null) : null;
          p = id ? `/api/orders/${id}` : '/api/board';
        }
        const t = performance.now();
        try {
          const r = await this.fetch(p, agent);
          const at = Date.now();
          const ms = performance.now() - t;
          const endpoint: Endpoint = id ? 'order' : 'board';
          this.latency[endpoint].push(ms);
          this.timeline.push({ atMs: at, ms, endpoint });
          if (r.status === 200 && id) this.tracker.saw(id, JSON.parse(r.body) as OrderAnswer, at);
          else if (r.status !== 200 && !(r.status === 404 && id)) this.error(`${p}: HTTP ${r.status} ${r.body.slice(0, 120)}`);
        } catch (e) {
          this.error(`${p}: ${e instanceof Error ? e.message : String(e)}`);
        }
        if (!urgent) await new Promise((r) => setTimeout(r, this.pauseMs));
      }
    } finally {
      agent.destroy();
    }
  }

  /**
   * GET through the keep-alive `agent`; a connection reset before any answer is retried once on a
   * new connection, as browsers retry an idempotent request whose reused connection the server
   * closed meanwhile (a server's idle timer can close it just as a request goes out). Counted in `resets`.
   */
  private async fetch(p: string, agent: http.Agent): Promise<{ status: number; body: string }> {
    try {
      return await get(this.port, p, agent, 30_000);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ECONNRESET' && code !== 'EPIPE') throw e;
      this.resets++;
      return await get(this.port, p, false, 30_000);
    }
  }

  private error(what: string): void {
    this.errors++;
    if (this.errorSamples.length < 10) this.errorSamples.push(what);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.done);
  }
}

// ---- the change feed ------------------------------------------------------------------------------

/** One row of the index's change feed: `order_id` '*' means every order. `at_ms`: the indexer's clock (this machine). */
export interface FeedRow {
  readonly seq: number;
  readonly order_id: string;
  readonly at_ms: number;
}

/** Copies the feed's rows from the index database (read-only) every `everyMs`. */
export class FeedReader {
  readonly rows: FeedRow[] = [];
  private db: Database.Database | null = null;
  private last = 0;
  private timer: NodeJS.Timeout;
  /** Rows the indexer trimmed before they were copied (a gap in seq). */
  gaps = 0;
  errors = 0;

  constructor(
    private readonly file: string,
    everyMs = 1000,
  ) {
    this.timer = setInterval(() => this.read(), everyMs);
  }

  /** Starts from the feed's newest row: what came before is the cold index's. */
  begin(): void {
    this.read();
    this.rows.length = 0;
  }

  read(): void {
    try {
      this.db ??= new Database(this.file, { readonly: true, fileMustExist: true });
      const got = this.db.prepare('SELECT seq, order_id, at_ms FROM changes WHERE seq > ? ORDER BY seq').all(this.last) as FeedRow[];
      for (const r of got) {
        if (this.last > 0 && this.rows.length > 0 && r.seq !== this.last + 1) this.gaps++;
        this.rows.push(r);
        this.last = r.seq;
      }
    } catch {
      this.errors++; // the database busy or not there yet: the next read copies the rows
    }
  }

  get lastSeq(): number {
    return this.last;
  }

  close(): void {
    clearInterval(this.timer);
    this.read();
    this.db?.close();
    this.db = null;
  }
}
