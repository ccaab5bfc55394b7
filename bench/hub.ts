/**
 * `npm run bench -- --hub <C>x<M>`: the multi-channel row. One `claimboard serve` of C channels of
 * M orders each (a hub), beside one `claimboard serve` of one channel of C x M orders, in the same
 * run and measured by the same steps: the cold index, the warm start, a write reaching the board
 * (p95), the API under load (p95 of the board and of an order) and the peak RSS of the process
 * tree. Prints both, the hub's ratio to the single channel, and whether each target is met
 * (within 1.2x of the single channel; RSS at most 450 MB). Figures only: it fails on nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { generateChannel, LEDGER_CAP, orderIdOf, readPlan, refreshLiveHeartbeats, writeAtomic, type Generated, type LiveHeartbeat, type Plan } from './generate';
import { f1, f2, freePort, get, inotifyWatches, killGroup, log, RssSampler, sec, sleep, started, stats, watchServe } from './harness';

/** The hub's targets against the single channel of as many orders (issue: "Scale"). */
export const HUB_RATIO_TARGET = 1.2;
export const HUB_RSS_TARGET_MB = 450;

export interface HubBenchOptions {
  /** Channels in the hub. */
  readonly channels: number;
  /** Orders in each of them (the single channel has channels x orders). */
  readonly orders: number;
  readonly writes: number;
  readonly clients: number;
  readonly loadS: number;
  readonly staleAfterS: number;
  readonly cache: string;
  readonly timeoutS: number;
}

/** `--hub` as given: `<channels>x<orders each>`, at least 2 channels (one channel is `--orders`). */
export function parseHubSize(v: string | undefined): { channels: number; orders: number } {
  const m = /^(\d+)x(\d+)$/.exec(v ?? '');
  const channels = Number(m?.[1]);
  const orders = Number(m?.[2]);
  if (!m || channels < 2 || orders < 1) throw new Error(`--hub: expected <channels>x<orders each>, 2 channels or more (e.g. 10x10000), got ${v ?? 'nothing'}`);
  return { channels, orders };
}

const PROJECT_DIR = path.resolve(import.meta.dirname, '..');
/** Warm starts measured per setup; the median counts. */
const WARM_STARTS = 3;
/** A write not on the board within this long counts as this long (and as timed out). */
const WRITE_TIMEOUT_MS = 30_000;

/** One channel served: its name in the hub (null: the single channel, served alone), its folder and plan. */
interface Served {
  readonly name: string | null;
  readonly g: Generated;
  readonly plan: Plan;
}

/** One `claimboard serve` run: its output lines watched for each channel's "index: ready", its RSS sampled. */
class Serve {
  readonly proc: ChildProcess;
  readonly rss: RssSampler;
  readonly t0 = performance.now();
  private readonly readyAt: number[] = [];
  private tailLines: string[] = [];
  exited: number | null = null;
  readonly exitP: Promise<void>;

  constructor(args: readonly string[], cwd: string) {
    this.proc = spawn(process.execPath, [path.join(PROJECT_DIR, 'bin', 'claimboard.mjs'), 'serve', ...args], {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_OPTIONS: '', CLAIMBOARD_DB: '' },
    });
    const pid = this.proc.pid;
    if (!pid) throw new Error('claimboard serve did not start');
    started.add(pid);
    this.rss = new RssSampler(pid);
    const onLine = (line: string) => {
      this.tailLines = [...this.tailLines.slice(-30), line];
      if (/index: ready in/.test(line)) this.readyAt.push(performance.now());
    };
    this.exitP = watchServe(this.proc, pid, this.rss, onLine, (code) => (this.exited = code));
  }

  /** Spawn to the n-th "index: ready in" line (each channel says it once its first index, cold or warm, is complete), ms. */
  async waitReady(n: number, timeoutS: number): Promise<number> {
    const deadline = this.t0 + timeoutS * 1000;
    while (this.readyAt.length < n) {
      if (this.exited !== null) throw new Error(`claimboard serve exited (${this.exited}) before ${n} channel(s) were ready:\n${this.tailLines.join('\n')}`);
      if (performance.now() > deadline) throw new Error(`${this.readyAt.length} of ${n} channel(s) ready within ${timeoutS} s:\n${this.tailLines.join('\n')}`);
      await sleep(50);
    }
    return (this.readyAt[n - 1] as number) - this.t0;
  }

  /** Until GET /api/board answers 200. */
  async waitHttp(port: number, timeoutS: number): Promise<void> {
    const agent = new http.Agent({ keepAlive: false });
    const deadline = performance.now() + timeoutS * 1000;
    try {
      for (;;) {
        if ((await get(port, '/api/board', agent, 5000).catch(() => null))?.status === 200) return;
        if (this.exited !== null || performance.now() > deadline) throw new Error(`no HTTP 200 from /api/board within ${timeoutS} s:\n${this.tailLines.join('\n')}`);
        await sleep(100);
      }
    } finally {
      agent.destroy();
    }
  }

  /** Until the serve's inotify watch count is above zero and unchanged for 1.5 s (the writes are then seen by their watch), or `timeoutS`. */
  async waitWatches(timeoutS: number): Promise<number> {
    const pid = this.proc.pid as number;
    const deadline = performance.now() + timeoutS * 1000;
    let last = -1;
    let since = performance.now();
    while (performance.now() < deadline && this.exited === null) {
      const w = inotifyWatches(pid) ?? 0;
      if (w !== last) [last, since] = [w, performance.now()];
      else if (w > 0 && performance.now() - since >= 1500) return w;
      await sleep(500);
    }
    return last;
  }

  /** SIGTERM, then SIGKILL to its group after 15 s. */
  async stop(): Promise<void> {
    const pid = this.proc.pid as number;
    if (this.exited === null) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        /* gone */
      }
      const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), 15_000);
      await this.exitP;
      clearTimeout(timer);
    }
    killGroup(pid, 'SIGKILL');
  }
}

/** The figures of one setup (the single channel or the hub). */
interface Figures {
  readonly coldS: number;
  readonly warmS: number;
  readonly writeP50Ms: number;
  readonly writeP95Ms: number;
  readonly writeTimeouts: number;
  readonly boardP95Ms: number;
  readonly orderP95Ms: number;
  readonly requests: number;
  readonly errors: number;
  readonly rssMb: number;
}

/** `?channel=` for an order of `s` (nothing for the single channel, which is served alone). */
const channelQuery = (s: Served) => (s.name === null ? '' : `?channel=${s.name}`);

const targetCache = new Map<Served, LiveHeartbeat[]>();
/** The live heartbeats of plain running orders' holders: the heartbeat each card shows, so a rewrite moves it (another run's would not). */
function targetsOf(s: Served): LiveHeartbeat[] {
  let t = targetCache.get(s);
  if (!t) {
    const live = new Map(s.plan.live.map((h) => [h.rel, h]));
    t = s.plan.running.flatMap(([id, holder]) => live.get(`tasks/${id}/heartbeat.${holder}.json`) ?? []);
    targetCache.set(s, t);
  }
  return t;
}

/**
 * `writes` heartbeat rewrites (temp + rename, a new arrival) of running orders' holders, spread over the
 * channels in turn, one at a time ~50 ms apart: write to GET /api/orders/:id showing the new
 * arrival (polled every 10 ms). Heartbeats only, the same on both sides, and no undo is needed:
 * every run rewrites the live heartbeats anyway.
 */
async function writes(port: number, served: readonly Served[], n: number): Promise<{ ms: number[]; timeouts: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ms: number[] = [];
  let timeouts = 0;
  const arrival = async (s: Served, id: string): Promise<number | null> => {
    const r = await get(port, `/api/orders/${id}${channelQuery(s)}`, agent, WRITE_TIMEOUT_MS).catch(() => null);
    return r?.status === 200 ? ((JSON.parse(r.body) as { card: { heartbeat: { arrival_ms: number } | null } }).card.heartbeat?.arrival_ms ?? 0) : null;
  };
  try {
    for (let j = 0; j < n; j++) {
      const s = served[j % served.length] as Served;
      const targets = targetsOf(s);
      const rounds = Math.ceil(n / served.length);
      const h = targets[Math.floor(((Math.floor(j / served.length) + 0.5) * targets.length) / rounds)];
      if (!h) continue;
      const before = await arrival(s, h.order_id);
      if (before === null) continue;
      const t0 = performance.now();
      writeAtomic(path.join(s.g.root, h.rel), JSON.stringify({ order_id: h.order_id, agent: h.agent, run: h.run, pid: h.pid, at: new Date().toISOString() }, null, 2));
      let took: number | null = null;
      while (performance.now() - t0 < WRITE_TIMEOUT_MS) {
        const now = await arrival(s, h.order_id);
        if (now !== null && now !== before) {
          took = performance.now() - t0;
          break;
        }
        await sleep(10);
      }
      if (took === null) timeouts++;
      ms.push(took ?? WRITE_TIMEOUT_MS);
      await sleep(50);
    }
  } finally {
    agent.destroy();
  }
  return { ms, timeouts };
}

/** `clients` keep-alive clients for `seconds`, each asking in turn for the whole board and for an order of a channel (channels and orders in rotation). */
async function load(port: number, served: readonly Served[], clients: number, seconds: number) {
  const board: number[] = [];
  const order: number[] = [];
  let errors = 0;
  let seq = 0;
  const deadline = performance.now() + seconds * 1000;
  const client = async (c: number) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let j = 0; performance.now() < deadline; j++) {
        const s = seq++;
        const isBoard = (c + j) % 2 === 0;
        const ch = served[s % served.length] as Served;
        const p = isBoard ? '/api/board' : `/api/orders/${orderIdOf(((s * 2654435761) >>> 0) % ch.g.orders, ch.g.orders)}${channelQuery(ch)}`;
        const t = performance.now();
        const r = await get(port, p, agent, 30_000).catch(() => null);
        if (r?.status !== 200) errors++;
        (isBoard ? board : order).push(performance.now() - t);
      }
    } finally {
      agent.destroy();
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  return { board: stats(board), order: stats(order), errors };
}

/**
 * One setup (the single channel or the hub) on its own scratch folder (its index files) and
 * port, measured a step at a time so that the two setups' steps can alternate: the cold index
 * (fresh indexes), warm starts (restarts on them), the writes then the load (on one serve
 * started warm). Every serve is stopped before the step returns.
 */
class Setup {
  private readonly work = fs.mkdtempSync(path.join(os.tmpdir(), 'claimboard-bench-hub-'));
  private readonly removeWork = () => fs.rmSync(this.work, { recursive: true, force: true });
  private port = 0;
  private args: string[] = [];
  private coldS = NaN;
  private readonly warms: number[] = [];
  private watches = 0;
  private rssMb = 0;
  private write: { ms: number[]; timeouts: number } = { ms: [], timeouts: 0 };
  private api: Awaited<ReturnType<typeof load>> | null = null;

  constructor(
    readonly label: string,
    private readonly served: readonly Served[],
    private readonly o: HubBenchOptions,
  ) {
    process.on('exit', this.removeWork);
  }

  async init(): Promise<void> {
    this.port = await freePort();
    // The single channel on an index file in the scratch folder; the hub keeps one per channel under its working folder, the scratch folder.
    const s = this.served;
    this.args = [
      ...(s.length === 1 && s[0]?.name === null ? [s[0].g.root, '--db', path.join(this.work, 'index.sqlite')] : s.map((c) => `${c.name}=${c.g.root}`)),
      ...['--port', String(this.port), '--host', '127.0.0.1', '--stale-after', String(this.o.staleAfterS)],
    ];
  }

  /** A serve, run to every channel's "index: ready" and its watches in place, `then` done with it, stopped; returns the time to ready, s. */
  private async serve(then?: () => Promise<void>): Promise<number> {
    const run = new Serve(this.args, this.work);
    try {
      const readyS = sec(await run.waitReady(this.served.length, this.o.timeoutS));
      await run.waitHttp(this.port, 120);
      this.watches = await run.waitWatches(120);
      await then?.();
      return readyS;
    } finally {
      await run.stop();
      this.rssMb = Math.max(this.rssMb, run.rss.peaks().totalMb);
    }
  }

  /** The cold index: spawn on empty indexes to every channel's first index complete. */
  async cold(): Promise<void> {
    for (const s of this.served) refreshLiveHeartbeats(s.g, s.plan);
    this.coldS = await this.serve();
    log(`${this.label}: cold index ${f2(this.coldS)} s; peak RSS ${f1(this.rssMb)} MB`);
  }

  /** One warm start: a restart on the indexes, to every channel's first index complete. */
  async warm(): Promise<void> {
    const s = await this.serve();
    this.warms.push(s);
    log(`${this.label}: warm start ${f2(s)} s (${this.watches} watches)`);
  }

  /** The writes, then the API under load, on one serve started warm (its web process answering since the writes began). */
  async serving(): Promise<void> {
    await this.serve(async () => {
      this.write = await writes(this.port, this.served, this.o.writes);
      const ws = stats(this.write.ms);
      log(`${this.label}: ${ws.n} writes, p50 ${f1(ws.p50)} ms, p95 ${f1(ws.p95)} ms, max ${f1(ws.max)} ms, ${this.write.timeouts} timed out`);
      this.api = await load(this.port, this.served, this.o.clients, this.o.loadS);
    });
    const l = this.api as Awaited<ReturnType<typeof load>>;
    log(`${this.label}: API under ${this.o.clients} clients, board p95 ${f1(l.board.p95)} ms, order p95 ${f1(l.order.p95)} ms, ${l.errors} errors; peak RSS ${f1(this.rssMb)} MB`);
  }

  figures(): Figures {
    const l = this.api;
    return {
      coldS: this.coldS,
      warmS: stats(this.warms).p50,
      writeP50Ms: stats(this.write.ms).p50,
      writeP95Ms: stats(this.write.ms).p95,
      writeTimeouts: this.write.timeouts,
      boardP95Ms: l?.board.p95 ?? NaN,
      orderP95Ms: l?.order.p95 ?? NaN,
      requests: (l?.board.n ?? 0) + (l?.order.n ?? 0),
      errors: l?.errors ?? 0,
      rssMb: this.rssMb,
    };
  }

  dispose(): void {
    this.removeWork();
    process.off('exit', this.removeWork);
  }
}

/**
 * Both setups measured, their steps alternating (single, hub; single, hub; ...): the cold
 * indexes, the warm starts (WARM_STARTS each, the median counts), the writes and the load. This
 * machine's speed moves by more than the targets' 20 % over minutes; alternating puts each
 * step of the two setups minutes apart at most, instead of one whole setup after the other.
 */
async function measureBoth(setups: readonly Setup[]): Promise<void> {
  for (const s of setups) await s.init();
  for (const s of setups) await s.cold();
  for (let i = 0; i < WARM_STARTS; i++) for (const s of setups) await s.warm();
  for (const s of setups) await s.serving();
}

/** The row: generates (once, cached) the single channel and the hub's channels, measures both, prints the comparison and one `bench-hub ...` line, last. */
export async function runHub(o: HubBenchOptions): Promise<void> {
  const total = o.channels * o.orders;
  log(`hub row: ${o.channels} channels x ${o.orders} orders against 1 channel x ${total} orders; load=${o.loadS}s writes=${o.writes} clients=${o.clients} stale_after=${o.staleAfterS}s on ${os.cpus().length} cores`);
  const single = generateChannel(total, o.cache, log);
  // The same fleet's records split into C channels: each writer's ledger file in a channel holds
  // at most 1/C of the lines it holds in the single channel, so the C channels together hold as
  // many ledger lines (and signatures to check) as the single one; with the whole cap in each,
  // 10 channels of 10,000 would hold 2.9 times the single channel's ledger lines.
  const ledgerCap = Math.ceil(LEDGER_CAP / o.channels);
  const hub: Served[] = Array.from({ length: o.channels }, (_, k) => {
    // Each channel its own folder (a hub serves a folder once), cached by size and position.
    const g = generateChannel(o.orders, path.join(o.cache, `hub-${o.orders}`, `c${String(k).padStart(2, '0')}`), log, ledgerCap);
    return { name: `c${String(k).padStart(2, '0')}`, g, plan: readPlan(g) };
  });
  const setups = [new Setup(`1x${total}`, [{ name: null, g: single, plan: readPlan(single) }], o), new Setup(`${o.channels}x${o.orders}`, hub, o)];
  try {
    await measureBoth(setups);
  } finally {
    for (const s of setups) s.dispose();
  }
  const [one, many] = setups.map((s) => s.figures()) as [Figures, Figures];

  const ratioRows: [string, keyof Figures, number][] = [
    ['cold index (s)', 'coldS', 2],
    ['warm start (s)', 'warmS', 2],
    ['a write reaches the board, p95 (ms)', 'writeP95Ms', 0],
    ['API p95 under load, board (ms)', 'boardP95Ms', 1],
    ['API p95 under load, order (ms)', 'orderP95Ms', 1],
  ];
  const rows: string[][] = [['', `1 x ${total.toLocaleString('en')}`, `${o.channels} x ${o.orders.toLocaleString('en')}`, 'hub / single', 'target', 'met']];
  let allMet = true;
  for (const [what, key, d] of ratioRows) {
    const ratio = many[key] / one[key];
    const met = ratio <= HUB_RATIO_TARGET;
    allMet &&= met;
    rows.push([what, one[key].toFixed(d), many[key].toFixed(d), `${f2(ratio)}x`, `<= ${HUB_RATIO_TARGET}x`, met ? 'yes' : 'NO']);
  }
  rows.push(['a write reaches the board, p50 (ms; no target)', one.writeP50Ms.toFixed(0), many.writeP50Ms.toFixed(0), `${f2(many.writeP50Ms / one.writeP50Ms)}x`, '', '']);
  const rssMet = many.rssMb <= HUB_RSS_TARGET_MB;
  allMet &&= rssMet;
  rows.push(['peak RSS, every process (MB)', f1(one.rssMb), f1(many.rssMb), `${f2(many.rssMb / one.rssMb)}x`, `<= ${HUB_RSS_TARGET_MB} MB`, rssMet ? 'yes' : 'NO']);
  const sum = (gs: readonly Generated[], k: 'files' | 'signed') => gs.reduce((a, g) => a + g[k], 0).toLocaleString('en');
  const hubGs = hub.map((s) => s.g);
  rows.push(['files / signed records in the folders', `${sum([single], 'files')} / ${sum([single], 'signed')}`, `${sum(hubGs, 'files')} / ${sum(hubGs, 'signed')}`, '', '', '']);
  rows.push(['writes timed out / API errors', `${one.writeTimeouts} / ${one.errors}`, `${many.writeTimeouts} / ${many.errors}`, '', '', '']);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] as string).length)));
  console.log('');
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i] as number)).join('  ').trimEnd());
  const line =
    `bench-hub channels=${o.channels} orders_each=${o.orders} single_orders=${total} ` +
    `cold_s=${f2(one.coldS)}/${f2(many.coldS)} warm_s=${f2(one.warmS)}/${f2(many.warmS)} incr_p95_ms=${one.writeP95Ms.toFixed(0)}/${many.writeP95Ms.toFixed(0)} ` +
    `api_board_p95_ms=${f1(one.boardP95Ms)}/${f1(many.boardP95Ms)} api_order_p95_ms=${f1(one.orderP95Ms)}/${f1(many.orderP95Ms)} rss_mb=${one.rssMb.toFixed(0)}/${many.rssMb.toFixed(0)} targets_met=${allMet ? 'yes' : 'no'}`;
  fs.writeFileSync(path.join(o.cache, `bench-hub-last-${o.channels}x${o.orders}.json`), JSON.stringify({ single: one, hub: many, table: rows, line, at: new Date().toISOString() }, null, 2));
  console.log('');
  console.log(line);
}
