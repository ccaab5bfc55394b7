/**
 * `npm run soak [-- --minutes M]`: the real `claimboard serve` on a temp channel that a
 * simulated fleet writes at 20+ files a second (test/support/soak/fleet.ts), with 50 event streams
 * and 10 clients polling the board and order pages, for M minutes (default 30). Prints, each
 * minute, the RSS and open descriptors of every claimboard process, and at the end: growth after
 * the warm-up (the first 5 minutes, or the first sixth of a shorter run), stream clients that
 * missed an update, the index lag p50/p95/max, and the board against a fresh index of the final
 * folder. Exits 1 when a check fails (growth over 10 %, a missed update, a write never shown, the
 * board unlike a fresh index), 2 on bad usage.
 *
 * Bounded: a hard timeout (M + 10 minutes) kills everything; every process it started is killed
 * by pid (its group) at the end, on errors and on Ctrl-C; the temp folder is removed.
 */
import os from 'node:os';
import { SoakHarness, type Verdict } from '../test/support/soak/harness';
import { killAll, removeTemps, sleep, type ProcSample } from '../test/support/soak/proc';
import { growth, type Growth } from '../test/support/soak/verdict';

interface Options {
  minutes: number;
  workers: number;
  streams: number;
  pollers: number;
  staleAfterS: number;
  maxOrders: number;
  hangRerun: number;
  keep: boolean;
}

const USAGE = `usage: npm run soak -- [--minutes M] [--workers N] [--streams N] [--pollers N] [--stale-after S] [--max-orders N] [--hang-rerun P] [--keep]
  --minutes M      how long the fleet writes (default 30; decimals allowed)
  --workers N      fleet workers, about 1.3 files a second each (default 24)
  --streams N      open /api/events streams (default 50)
  --pollers N      clients polling /api/board and /api/orders/<id> (default 10)
  --stale-after S  the board's stale_after, seconds (default 20: dead runs go stale and come back within the run)
  --max-orders N   order folders kept; older finished ones are archived (default 600)
  --hang-rerun P   share of reruns (a sent-back order's next revision) whose heartbeat hangs (default 0.3; 0: none)
  --keep           keep the temp folder (channel and index)`;

function parse(argv: readonly string[]): Options {
  const o: Options = { minutes: 30, workers: 24, streams: 50, pollers: 10, staleAfterS: 20, maxOrders: 600, hangRerun: 0.3, keep: false };
  const num = (k: string, v: string | undefined, min: number) => {
    const n = Number(v);
    if (v === undefined || !Number.isFinite(n) || n < min) throw new Error(`${k}: expected a number >= ${min}, got ${v ?? 'nothing'}\n${USAGE}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const v = argv[i + 1];
    switch (a) {
      case '--minutes': o.minutes = num(a, v, 0.5); i++; break;
      case '--workers': o.workers = Math.floor(num(a, v, 1)); i++; break;
      case '--streams': o.streams = Math.floor(num(a, v, 1)); i++; break;
      case '--pollers': o.pollers = Math.floor(num(a, v, 1)); i++; break;
      case '--stale-after': o.staleAfterS = num(a, v, 1); i++; break;
      case '--max-orders': o.maxOrders = Math.floor(num(a, v, 50)); i++; break;
      case '--hang-rerun': o.hangRerun = num(a, v, 0); i++; break;
      case '--keep': o.keep = true; break;
      case '--help': case '-h': console.log(USAGE); process.exit(0); break;
      default: throw new Error(`unknown option ${a}\n${USAGE}`);
    }
  }
  return o;
}

const log = (line: string) => console.error(`soak: ${line}`);
const mb = (kb: number) => (kb / 1024).toFixed(1);
const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : 'NA');
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

function sampleLine(minute: number, s: readonly ProcSample[]): string {
  const total = s.reduce((a, p) => a + p.rssKb, 0);
  return `minute ${String(minute).padStart(3)}: ${s.map((p) => `${p.name} (pid ${p.pid}) ${mb(p.rssKb)} MB ${p.fds} fds`).join('; ')}; total ${mb(total)} MB; load ${load()}`;
}

function growthLine(g: Growth): string {
  return `${g.name}: RSS ${mb(g.rssFromKb)} -> ${mb(g.rssToKb)} MB (${g.rssPct >= 0 ? '+' : ''}${g.rssPct.toFixed(1)} %), fds ${g.fdsFrom} -> ${g.fdsTo} (${g.fdsPct >= 0 ? '+' : ''}${g.fdsPct.toFixed(1)} %)`;
}

/** The checks, each a line: ok or FAIL with why. */
function checks(v: Verdict, g: { perProcess: Growth[]; total: Growth } | null): { ok: boolean; lines: string[] } {
  const lines: string[] = [];
  let ok = true;
  const check = (pass: boolean, what: string) => {
    ok &&= pass;
    lines.push(`${pass ? 'ok  ' : 'FAIL'} ${what}`);
  };
  if (g) {
    for (const p of g.perProcess) check(p.rssPct <= 10 && p.fdsPct <= 10, `growth after warm-up, ${growthLine(p)}`);
  }
  check(v.missedClients === 0, `event streams that missed an update: ${v.missedClients} (feed rows not covered ${v.streamGaps}, writes never told ${v.unheardWrites}, unreadable events ${v.parseErrors}; reconnects ${v.reconnects})`);
  check(Object.keys(v.feedMisses).length === 0, `order-folder writes without a change-feed row: ${JSON.stringify(v.feedMisses)}`);
  check(v.unseen.length === 0, `writes the board never showed: ${v.unseen.length}`);
  check(v.boardDiffering === 0, `board equal to a fresh index of the final folder: ${v.boardOrders} orders on the board, ${v.freshOrders} fresh, ${v.boardDiffering} differing`);
  check(v.api.errors === 0, `API errors: ${v.api.errors}`);
  check(v.fleetErrors.length === 0, `fleet errors: ${v.fleetErrors.length}`);
  check(v.serveExited === null, `claimboard serve still running at the end (${v.serveExited === null ? 'yes' : `exited ${v.serveExited}`})`);
  check(v.filesPerS >= 20, `fleet rate ${v.filesPerS.toFixed(1)} files/s (at least 20)`);
  return { ok, lines };
}

async function main(): Promise<number> {
  const o = parse(process.argv.slice(2));
  const runMs = o.minutes * 60_000;
  const hard = setTimeout(() => {
    log(`hard timeout (${o.minutes + 10} min): killing everything`);
    killAll();
    removeTemps();
    process.exit(1);
  }, runMs + 10 * 60_000);
  hard.unref();
  log(`${o.minutes} min, ${o.workers} workers, ${o.streams} streams, ${o.pollers} pollers, stale_after ${o.staleAfterS} s, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), node ${process.version}, load ${load()}`);
  const h = await SoakHarness.start({ workers: o.workers, streams: o.streams, pollers: o.pollers, staleAfterS: o.staleAfterS, maxOrders: o.maxOrders, hangs: { rerun: o.hangRerun }, keep: o.keep, log });
  try {
    const t0 = Date.now();
    const samples: { atMs: number; procs: ProcSample[] }[] = [];
    const take = () => {
      const s = h.sample();
      samples.push({ atMs: Date.now() - t0, procs: s });
      console.log(sampleLine(Math.round((Date.now() - t0) / 60_000), s));
    };
    take();
    for (let m = 1; Date.now() - t0 < runMs; m++) {
      await sleep(Math.max(0, Math.min(t0 + m * 60_000, t0 + runMs) - Date.now()));
      if (h.serve?.exited !== null) throw new Error(`claimboard serve exited (${h.serve?.exited}):\n${h.serve?.tail()}`);
      take();
    }
    // Warm-up: the first five minutes, or the first sixth of a shorter run.
    const warmMs = Math.min(5 * 60_000, runMs / 6);
    const base = samples.find((s) => s.atMs >= warmMs - 1000) ?? samples[0];
    const last = samples[samples.length - 1];
    const g = base && last && base !== last ? growth(base.procs, last.procs) : null;
    const v = await h.finish();
    console.log('');
    console.log(`fleet: ${v.filesPerS.toFixed(1)} files/s tracked (${JSON.stringify(v.writes)})`);
    console.log(`index lag (write -> the board's answer shows it, this machine's clock): p50 ${f0(v.lag.p50)} ms, p95 ${f0(v.lag.p95)} ms, max ${f0(v.lag.max)} ms over ${v.lag.n} writes (${v.superseded} made moot by a later write before being seen)`);
    for (const [k, s] of Object.entries(v.lagByKind)) console.log(`  ${k}: p50 ${f0(s.p50)} ms, p95 ${f0(s.p95)} ms, max ${f0(s.max)} ms (${s.n})`);
    console.log(`API under the soak: /api/board p50 ${f0(v.api.board.p50)} ms p95 ${f0(v.api.board.p95)} ms (${v.api.board.n}); /api/orders/<id> p50 ${f0(v.api.order.p50)} ms p95 ${f0(v.api.order.p95)} ms (${v.api.order.n}); errors ${v.api.errors} (connection resets retried: ${v.api.resets})`);
    console.log(`change feed: ${v.feedRows} rows copied, ${v.feedGaps} gaps; board lanes ${JSON.stringify(v.laneCounts)}`);
    if (g) {
      console.log(`growth from minute ${Math.round((base?.atMs ?? 0) / 60_000)} to minute ${Math.round((last?.atMs ?? 0) / 60_000)}:`);
      for (const p of [...g.perProcess, g.total]) console.log(`  ${growthLine(p)}`);
    }
    for (const s of [...v.missedSamples, ...v.feedMissSamples, ...v.boardDiffs, ...v.api.errorSamples, ...v.fleetErrors.slice(0, 5)]) console.log(`  ${s}`);
    for (const u of v.unseen.slice(0, 10)) console.log(`  never shown: ${u.kind} ${u.rel} ${JSON.stringify(u.expect)}`);
    const c = checks(v, g);
    console.log('');
    for (const l of c.lines) console.log(l);
    console.log(`load average at the end: ${load()}`);
    return c.ok ? 0 : 1;
  } finally {
    await h.close();
    clearTimeout(hard);
  }
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    log(`${sig}: stopping what the soak started`);
    killAll();
    removeTemps();
    process.exit(130);
  });
}
process.on('exit', () => killAll());

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    log(e instanceof Error ? (e.stack ?? e.message) : String(e));
    killAll();
    process.exit(1);
  },
);
