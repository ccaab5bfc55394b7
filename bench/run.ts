/**
 * `npm run bench [-- --orders N]`: on a generated channel of N orders (cached), measures
 * side by side the read floor, the cold index, the warm start, incremental latency, API
 * latency under load, peak RSS of the server (indexer process and next-server child), and the
 * board's first paint in Chromium. Prints a table and, last, one `bench ...` line.
 * Figures only: nothing here asserts a target. See bench/README.md for what each figure means.
 *
 * Everything it starts binds 127.0.0.1, is bounded in time, and is killed by PID (process
 * group) at the end, on errors, and on Ctrl-C.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { generateChannel, readPlan, refreshLiveHeartbeats } from './generate';
import { chooseVerifier, NODE_VERIFIER } from '../lib/index/disk/verifier';
import { settings } from '../lib/config';
import { topSelfTime } from './profile';
import { descendants } from '../test/support/soak/proc';
import { cpuSeconds, f1, f2, freePort, get, killGroup, log, sec, started, stats, type RssPeaks } from './harness';
import { verifyOnAllCores } from './verify-all';
import { readFloor } from './floor';
import { parseHubSize, runHub } from './hub';
import { ensureBuild, PROJECT_DIR, Server } from './server';
import { verifierRate, verifySample } from './verify-sample';
import { cleanupWrites, incremental, INCREMENTAL_BUDGET_MS, journalWrites, WRITE_TIMEOUT_MS } from './writes';
import { apiLoad, apiUnloaded, ENDPOINTS, holdsPages, HOLDS_BASE, type Endpoint } from './api';
import { firstPaint } from './first-paint';

// ---- options ---------------------------------------------------------------------------

interface Options {
  orders: number;
  loadS: number;
  writes: number;
  clients: number;
  staleAfterS: number;
  skipPaint: boolean;
  /** Read floor passes (the last one counts): 2 by default, the first warming the page cache. */
  floorPasses: number;
  keep: boolean;
  cpuProf: boolean;
  cliOnly: boolean;
  apiOnly: boolean;
  cache: string;
  timeoutS: number;
  /** The API endpoints requested, in rotation (all by default). */
  endpoints: readonly Endpoint[];
  /** `--hub <C>x<M>`: the multi-channel row instead (bench/hub.ts). */
  hub: { channels: number; orders: number } | null;
}

const USAGE = `usage: npm run bench -- [--orders N] [--load-s S] [--writes W] [--clients C] [--stale-after S]
                         [--skip-paint] [--keep] [--cpu-prof] [--cli-only] [--api-only] [--cache DIR] [--timeout-s S]
                         [--floor-passes P] [--endpoints LIST] [--hub CxM]
  --orders N       orders in the generated channel (default 100000; generated once, cached)
  --load-s S       seconds of API load (default 20)
  --writes W       incremental single-file writes (default 200)
  --clients C      concurrent API clients (default 20)
  --stale-after S  the server's stale_after, seconds (default 1800, see bench/README.md)
  --skip-paint     skip the Chromium first-paint measurement
  --floor-passes P read floor passes, the last one counted (default 2: the first warms the page cache;
                   1 where the channel is larger than the page cache, as 1M orders here, and a second pass reads the disk again)
  --keep           keep the index database (its path is printed)
  --cpu-prof       write V8 CPU profiles of the indexer process (cold and serving runs) and print the top functions
  --cli-only       only the CLI start row: \`claimboard state --json\` on a 20-file channel
  --api-only       only the cold index and the API rows (board, lane, order, holds): no read floor, verifier rows,
                   warm start, incremental writes or paint; the API is measured on the cold server
  --cache DIR      where generated channels live (default bench/.cache)
  --timeout-s S    give up on the cold index after S seconds (default max(300, N/50))
  --endpoints LIST the API endpoints requested, comma-separated, of board,lane,order,holds (default all):
                   the same load as a build that lacks one
  --hub CxM        the multi-channel row alone: one serve of C channels of M orders each beside one serve of one
                   channel of C x M orders, the same figures of each and the targets (bench/hub.ts); uses
                   --writes, --clients, --load-s, --stale-after, --cache, --timeout-s`;

function parseOptions(argv: readonly string[]): Options {
  const o: Options = {
    orders: 100_000,
    loadS: 20,
    writes: 200,
    clients: 20,
    staleAfterS: 1800,
    skipPaint: false,
    floorPasses: 2,
    keep: false,
    cpuProf: false,
    cliOnly: false,
    apiOnly: false,
    cache: path.join(import.meta.dirname, '.cache'),
    timeoutS: 0,
    endpoints: ENDPOINTS,
    hub: null,
  };
  const num = (k: string, v: string | undefined, min: number): number => {
    const n = Number(v);
    if (v === undefined || !Number.isFinite(n) || n < min) throw new Error(`${k}: expected a number >= ${min}, got ${v ?? 'nothing'}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const v = argv[i + 1];
    switch (a) {
      case '--orders': o.orders = Math.floor(num(a, v, 1)); i++; break;
      case '--load-s': o.loadS = num(a, v, 1); i++; break;
      case '--writes': o.writes = Math.floor(num(a, v, 0)); i++; break;
      case '--clients': o.clients = Math.floor(num(a, v, 1)); i++; break;
      case '--stale-after': o.staleAfterS = num(a, v, 1); i++; break;
      case '--timeout-s': o.timeoutS = num(a, v, 1); i++; break;
      case '--cache': if (!v) throw new Error('--cache: expected a folder'); o.cache = path.resolve(v); i++; break;
      case '--endpoints': o.endpoints = parseEndpoints(v); i++; break;
      case '--skip-paint': o.skipPaint = true; break;
      case '--floor-passes': o.floorPasses = Math.floor(num(a, v, 1)); i++; break;
      case '--keep': o.keep = true; break;
      case '--cpu-prof': o.cpuProf = true; break;
      case '--cli-only': o.cliOnly = true; break;
      case '--api-only': o.apiOnly = true; break;
      case '--hub': o.hub = parseHubSize(v); i++; break;
      case '--help': case '-h': console.log(USAGE); process.exit(0); break;
      default: throw new Error(`unknown option ${a}\n${USAGE}`);
    }
  }
  if (!o.timeoutS) o.timeoutS = Math.max(300, (o.hub ? o.hub.channels * o.hub.orders : o.orders) / 50);
  return o;
}

function parseEndpoints(v: string | undefined): Endpoint[] {
  const list = (v ?? '').split(',').filter(Boolean);
  const bad = list.filter((e) => !(ENDPOINTS as readonly string[]).includes(e));
  if (!list.length || bad.length) throw new Error(`--endpoints: expected some of ${ENDPOINTS.join(',')}, got ${v ?? 'nothing'}`);
  return ENDPOINTS.filter((e) => list.includes(e));
}

/** The bench's scratch folder (index database), removed on exit unless --keep. */
let scratch: { dir: string; keep: boolean } | null = null;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    log(`${sig}: stopping what the bench started`);
    for (const pid of started) killGroup(pid, 'SIGKILL');
    cleanupWrites();
    if (scratch && !scratch.keep) fs.rmSync(scratch.dir, { recursive: true, force: true });
    process.exit(130);
  });
}

// ---- the run -------------------------------------------------------------------------

/**
 * `claimboard state <channel> --json` as a script calls it (<= 0.3 s on a small
 * channel): a fresh `node bin/claimboard.mjs` process per call, wall milliseconds from spawn to
 * exit, on a 20-file channel made of two conformance vectors (11's folder and 04's order t1,
 * signed by the same keys). One call first, not counted (it builds dist/ if a source changed).
 */
function cliStart(runs: number): { files: number; ms: number[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'claimboard-bench-cli-'));
  try {
    const vectors = path.join(PROJECT_DIR, 'conformance', 'vectors');
    fs.cpSync(path.join(vectors, '11-give-up-ack-reopen', 'channel'), dir, { recursive: true });
    fs.cpSync(path.join(vectors, '04-stale-heartbeat-lapsed', 'channel', 'tasks', 't1'), path.join(dir, 'tasks', 't1'), { recursive: true });
    const files = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
    const call = () => {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, [path.join(PROJECT_DIR, 'bin', 'claimboard.mjs'), 'state', dir, '--json'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
      const ms = performance.now() - t0;
      if (r.status !== 0) throw new Error(`claimboard state failed (${r.status}): ${r.stderr}`);
      return ms;
    };
    call();
    return { files, ms: Array.from({ length: runs }, call) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const rows: [string, string, string][] = [];
  const row = (figure: string, value: string, how: string) => {
    rows.push([figure, value, how]);
    log(`${figure}: ${value}`);
  };
  if (o.hub) {
    ensureBuild();
    await runHub({ ...o.hub, writes: o.writes, clients: o.clients, loadS: o.loadS, staleAfterS: o.staleAfterS, cache: o.cache, timeoutS: o.timeoutS });
    return;
  }
  log(`orders=${o.orders} load=${o.loadS}s writes=${o.writes} clients=${o.clients} stale_after=${o.staleAfterS}s on ${os.cpus().length} cores, node ${process.version}`);
  const cli = cliStart(10);
  const cliS = stats(cli.ms);
  row('CLI start', `p50 ${Math.round(cliS.p50)} ms, max ${Math.round(cliS.max)} ms`, `\`claimboard state <channel> --json\` on a ${cli.files}-file channel, a new process per call, spawn to exit, ${cliS.n} calls (dist/ bundle, no bundler at run time)`);
  if (o.cliOnly) {
    console.log(`\nbench cli_state_ms=${Math.round(cliS.p50)} cli_state_max_ms=${Math.round(cliS.max)} files=${cli.files}`);
    return;
  }
  ensureBuild();

  // Channel (generated once, cached).
  let t = performance.now();
  const g = generateChannel(o.orders, o.cache, log);
  const plan = readPlan(g);
  journalWrites(g.root);
  cleanupWrites(); // leftovers of an interrupted run
  const genAgeS = sec(Date.now() - (g.generated_at_ms ?? 0));
  row('channel', `${g.orders} orders, ${g.files} files, ${g.signed} signatures`, `${g.root} (ready in ${f1(sec(performance.now() - t))} s; generated ${f1(genAgeS / 3600)} h ago)`);
  if (genAgeS < o.staleAfterS + 60) {
    log(`WARNING: the channel was generated ${Math.round(genAgeS)} s ago, less than stale_after (${o.staleAfterS} s): its old heartbeats still count as fresh, so the stale lane is smaller than designed (see bench/README.md)`);
  }
  t = performance.now();
  const refreshed = refreshLiveHeartbeats(g, plan);
  row('live heartbeats refreshed', String(refreshed), `temp + rename, new ctime (${f1(sec(performance.now() - t))} s)`);

  // Read floor, and each verifier alone (not with --api-only: NA).
  let floor: ReturnType<typeof readFloor> | null = null;
  let floorVerifiedS = NaN;
  if (!o.apiOnly) {
    const passes = Array.from({ length: o.floorPasses }, () => readFloor(g.root));
    floor = passes[passes.length - 1] as ReturnType<typeof readFloor>;
    const earlier = passes.slice(0, -1).map((p) => `${f2(sec(p.ms))} s`);
    row('read floor', `${f2(sec(floor.ms))} s`, `plain Node loop: readdir + lstat + readFile of ${floor.files} files, ${f1(floor.bytes / 1e6)} MB (pass ${passes.length} of ${passes.length}${earlier.length ? `; before: ${earlier.join(', ')}` : ''})`);
    // Each verifier alone, on this thread; the server's own choice is what its "ready" line names.
    const sodium = chooseVerifier({ want: settings.verifier() });
    const nodeRate = verifierRate(NODE_VERIFIER);
    row('verifier alone: node:crypto', `${Math.round(nodeRate)} /s`, 'Ed25519 verify on one core, in-process, one key');
    if (sodium.name === 'sodium-native') {
      const sodiumRate = verifierRate(sodium);
      row('verifier alone: sodium-native', `${Math.round(sodiumRate)} /s`, `libsodium's crypto_sign_verify_detached on one core, same payloads (${f2(sodiumRate / nodeRate)}x node:crypto)`);
    } else {
      row('verifier alone: sodium-native', 'not used', sodium.fallback ?? 'CLAIMBOARD_VERIFIER=node');
    }

    // The floor with the cryptography: the read floor plus every signature of the channel verified
    // on all cores with the chosen verifier and nothing else.
    const cores = os.availableParallelism();
    const allCores = await verifyOnAllCores(g.signed, cores, verifySample(), settings.verifier());
    floorVerifiedS = sec(floor.ms) + allCores.s;
    row('verifying alone, all cores', `${f2(allCores.s)} s`, `${g.signed} verifications with ${allCores.verifier} on ${cores} threads (${Math.round(g.signed / allCores.s)} /s), nothing else`);
    row('read floor + verifying', `${f2(floorVerifiedS)} s`, 'floor_verified_s: the read floor plus the row above, the least a cold index that reads and verifies everything could take here');
  }
  const floorS = floor ? sec(floor.ms) : NaN;

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'claimboard-bench-'));
  scratch = { dir: work, keep: o.keep };
  const db = path.join(work, 'index.sqlite');
  const profDir = o.cpuProf ? path.join(o.cache, `profiles-${o.orders}-${new Date().toISOString().replace(/[:.]/g, '-')}`) : null;
  let server: Server | null = null;
  const result: Record<string, unknown> = { orders: o.orders, files: floor ? floor.files : g.files, cli_state_ms: cliS.p50 };
  const profiles: string[] = [];
  let finalLine: string;
  try {
    // Cold index: a fresh database, the real `claimboard serve`.
    const port = await freePort();
    server = new Server(g.root, port, db, o.staleAfterS, profDir ? path.join(profDir, 'cold') : null);
    const cold = await server.waitReady(o.timeoutS);
    const coldHttp = await server.waitHttp(120);
    // Stopping before the watcher is subscribed leaves it running and the process never exits
    // (the subscription lands after stop()); wait for it, which is worth knowing anyway.
    const coldWatch = await server.waitWatcher(Math.max(120, o.orders / 500));
    const coldS = sec(cold.wallMs);
    const board = JSON.parse((await get(port, '/api/board', new http.Agent(), 30_000)).body) as { lanes: { lane: string; count: number }[]; problem_count: number };
    // With --api-only the cold server serves the API rows; else it stops and a warm start follows.
    const coldRss = o.apiOnly ? null : (await server.stop(o.cpuProf ? 120 : 15), server.rss.peaks());
    if (!o.apiOnly) server = null;
    const ph = cold.phases;
    const phaseText = ['scanning', 'reading', 'deriving', 'verifying', 'ready']
      .filter((p) => p in ph)
      .map((p, i, a) => (i === 0 ? `${p} at ${f1(sec(ph[p] as number))} s` : `${p} +${f1(sec((ph[p] as number) - (ph[a[i - 1] as string] as number)))} s`))
      .join(', ');
    row('cold index', `${f2(coldS)} s`, `spawn of \`claimboard serve\` on an empty database to "index: ready" (indexer's own: ${cold.ownS ?? '?'} s; ${cold.detail})`);
    const boardS = sec(cold.boardVisibleMs);
    row('cold: board visible', `${f2(boardS)} s`, `spawn to the "index: board visible" line: every card on the board, those from records not yet verified marked so (${f2(boardS / floorS)}x the read floor)`);
    row('cold index phases', phaseText, 'first time each progress phase was seen in the database (polled every 100 ms), from spawn');
    row('cold: first HTTP 200', `${f2(sec(coldHttp))} s`, 'spawn to /api/board answering 200 with the index ready');
    row('cold: watcher subscribed', coldWatch ? `${f2(sec(coldWatch.ms))} s` : 'no', coldWatch ? `spawn to when its inotify watch count was seen complete (${coldWatch.watches} watches; sampled every 500 ms from the first HTTP 200)` : 'no inotify watch appeared: the indexer relies on its periodic rescan');
    const verifyPerS = cold.verified !== null && cold.ownS ? cold.verified / cold.ownS : NaN;
    row('signatures verified', `${cold.verified ?? '?'} (${Math.round(verifyPerS)} /s)`, `with ${cold.verifier ?? '?'}; verified during the cold index / the indexer's own cold seconds (not time spent in verify alone)`);
    result.verifier = cold.verifier ?? 'unknown';
    row('board', board.lanes.map((l) => `${l.lane} ${l.count}`).join(', ') + `; problems ${board.problem_count}`, 'lane counts after the cold index');

    let warmS = NaN;
    let incP95 = NaN;
    if (!o.apiOnly) {
      // Warm start: the same database, nothing changed.
      server = new Server(g.root, port, db, o.staleAfterS, profDir ? path.join(profDir, 'serving') : null);
      const warm = await server.waitReady(o.timeoutS);
      const warmHttp = await server.waitHttp(120);
      const warmWatch = await server.waitWatcher(Math.max(120, o.orders / 500));
      warmS = sec(warm.wallMs);
      row('warm start', `${f2(warmS)} s`, `restart of \`claimboard serve\` on that database, nothing changed, spawn to "index: ready" (indexer's own: ${warm.ownS ?? '?'} s; ${warm.detail})`);
      row('warm: first HTTP 200', `${f2(sec(warmHttp))} s`, 'spawn to /api/board answering 200');
      row('warm: watcher subscribed', warmWatch ? `${f2(sec(warmWatch.ms))} s` : 'no', warmWatch ? `${warmWatch.watches} watches; the incremental step starts after this` : 'no inotify watch appeared: incremental writes wait for the periodic rescan');

      // Incremental latency.
      const inc = await incremental(port, g, plan, o.writes);
      const incS = stats(inc.all);
      incP95 = incS.p95;
      row('incremental', `p50 ${f1(incS.p50)} ms, p95 ${f1(incS.p95)} ms, max ${f1(incS.max)} ms`, `${incS.n} single-file writes (temp + rename) ~50 ms apart, write to /api/orders/:id showing it (polled every 10 ms); ${inc.timeouts} timed out (counted as ${WRITE_TIMEOUT_MS / 1000} s), ${inc.skipped} skipped${inc.unstarted ? `, ${inc.unstarted} not started (over the ${INCREMENTAL_BUDGET_MS / 1000} s budget)` : ''}`);
      for (const k of ['heartbeat', 'claim', 'release'] as const) {
        const s = stats(inc.byKind[k]);
        row(`  ${k}`, `p50 ${f1(s.p50)} ms, p95 ${f1(s.p95)} ms, max ${f1(s.max)} ms`, `${s.n} writes`);
      }
    }
    if (!server) throw new Error('no server to measure the API on');
    const serving = server;

    // API latency under load.
    const { orderIdOf } = await import('./generate');
    const idOf = (i: number) => orderIdOf(i, o.orders);
    const paths: Record<Endpoint, string> = { board: '/api/board', lane: '/api/board?lane=L&agent=A', order: '/api/orders/:id', holds: '/api/holds?range=30d[&agent=A|&cursor=C]' };
    if (o.endpoints.includes('holds')) {
      const hp = await holdsPages(port);
      row('holds in 30 days', `${hp.holds.toLocaleString('en')} in ${hp.pages} pages`, `GET ${HOLDS_BASE} walked page by page (200 a page) in ${f1(sec(hp.walkMs))} s; the load rotates through every page and each live agent's first`);
    }
    const alone = await apiUnloaded(port, o.endpoints, o.orders, 30, idOf);
    row('API, no load', '30 requests per endpoint', 'one keep-alive client, one request at a time: the cost of a request without queueing');
    for (const k of o.endpoints) {
      const a = stats(alone[k].ms);
      row(`  ${paths[k]}`, `p50 ${f1(a.p50)} ms, p95 ${f1(a.p95)} ms`, `${f1(alone[k].bytes / 1024)} KB per answer`);
    }
    const servePid = serving.proc.pid ?? 0;
    const cpu0 = { indexer: cpuSeconds([servePid]), web: cpuSeconds(descendants(servePid)), bench: process.cpuUsage() };
    const load = await apiLoad(port, o.endpoints, o.orders, o.clients, o.loadS, idOf);
    const benchCpu = process.cpuUsage(cpu0.bench);
    const loadCpu = { indexer: cpuSeconds([servePid]) - cpu0.indexer, web: cpuSeconds(descendants(servePid)) - cpu0.web, bench: (benchCpu.user + benchCpu.system) / 1e6 };
    const api: Record<Endpoint, ReturnType<typeof stats>> = { board: stats(load.lat.board), lane: stats(load.lat.lane), order: stats(load.lat.order), holds: stats(load.lat.holds) };
    const total = api.board.n + api.lane.n + api.order.n + api.holds.n;
    row('API load', `${total} requests in ${f1(load.wall)} s (${Math.round(total / load.wall)} /s)`, `${o.clients} keep-alive clients, endpoints in rotation`);
    for (const k of o.endpoints) {
      row(`  ${paths[k]}`, `p50 ${f1(api[k].p50)} ms, p95 ${f1(api[k].p95)} ms`, `${api[k].n} requests, ${load.errors[k]} errors, max ${f1(api[k].max)} ms`);
    }
    row(
      'API load CPU',
      `web ${f1(loadCpu.web)} s, indexer ${f1(loadCpu.indexer)} s, clients ${f1(loadCpu.bench)} s`,
      `CPU seconds each used during the ${f1(load.wall)} s of load (/proc stat, user + system; the clients are this process): ${os.cpus().length} cores to share`,
    );

    // First paint.
    let paint: Awaited<ReturnType<typeof firstPaint>> | null = null;
    if (!o.skipPaint && !o.apiOnly) {
      await get(port, '/', new http.Agent(), 60_000).catch(() => null); // load the page route once (not timed)
      paint = await firstPaint(port, 3);
      const c = stats(paint.cardMs);
      const fcp = stats(paint.fcpMs);
      row('first paint', `first card ${f1(c.p50)} ms, FCP ${f1(fcp.p50)} ms`, `Chromium, production build, median of 3 fresh contexts: navigation start to the first lane card laid out visible (runs: ${paint.cardMs.map((x) => Math.round(x)).join(', ')} ms; bench-side wall ${paint.wallMs.map((x) => Math.round(x)).join(', ')} ms)`);
    }

    await serving.stop(o.cpuProf ? 120 : 15);
    const servingRss = serving.rss.peaks();
    server = null;
    const cold0 = coldRss ?? servingRss;
    // The server's footprint: the peak of the total RSS of the process tree (indexer + web),
    // sampled every 200 ms, over the cold and the serving run, with each side's share at that
    // sample. Each process's own peak (VmHWM) is shown apart: the indexer's over both runs (it
    // peaks during the cold index), the web side's in the serving run (under the API load); their
    // sum, reached at no single moment, bounds the total from above.
    const rssMb = Math.max(cold0.totalMb, servingRss.totalMb);
    const indexerMb = Math.max(cold0.indexerMb, servingRss.indexerMb);
    const webMb = servingRss.webMb;
    const hwmSumMb = indexerMb + webMb;
    const split = (p: RssPeaks) => `${f1(p.totalMb)} = indexer ${f1(p.atPeak.indexerMb)} + web ${f1(p.atPeak.webMb)}`;
    row('peak RSS', `${f1(rssMb)} MB (cold run ${split(cold0)}; serving run ${split(servingRss)})`, `peak of the server's total RSS (indexer + web), sampled every 200 ms; each process's RSS at that sample`);
    row('  indexer peak', `${f1(indexerMb)} MB`, `VmHWM of the indexer process (\`claimboard serve\`): cold run ${f1(cold0.indexerMb)}, serving run ${f1(servingRss.indexerMb)}`);
    row('  web peak', `${f1(webMb)} MB`, `VmHWM of the web side in the serving run (${servingRss.web.join('; ')}); cold run ${f1(cold0.webMb)}`);
    row('  sum of peaks', `${f1(hwmSumMb)} MB`, 'indexer peak + web peak: an upper bound on the total, the two reached at different moments');

    if (profDir) {
      for (const sub of ['cold', 'serving']) {
        const dir = path.join(profDir, sub);
        // One profile per thread (main, the indexer's worker threads, tsx's loader): merged.
        const files = (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')) : []).map((f) => path.join(dir, f));
        if (files.length) {
          log(`CPU profiles (${sub}): ${dir}`);
          profiles.push(`\nTop self time, indexer process, all threads (${sub} run, ${dir}):\n${topSelfTime(files, 15)}`);
        }
      }
    }

    const fmt = (x: number, d: number) => (Number.isFinite(x) ? x.toFixed(d) : 'NA');
    Object.assign(result, {
      floor_s: floorS,
      cold_s: coldS,
      cold_ratio: coldS / floorS,
      board_visible_s: boardS,
      floor_verified_s: floorVerifiedS,
      cold_vs_verified: coldS / floorVerifiedS,
      warm_s: warmS,
      verify_per_s: verifyPerS,
      incr_p95_ms: incP95,
      api_board_p95_ms: api.board.p95,
      api_order_p95_ms: api.order.p95,
      api_holds_p95_ms: api.holds.p95,
      rss_mb: rssMb,
      rss_indexer_mb: indexerMb,
      rss_web_mb: webMb,
      rss_hwm_sum_mb: hwmSumMb,
      rss_runs: { cold: coldRss, serving: servingRss },
      paint_ms: paint ? stats(paint.cardMs).p50 : NaN,
    });
    const r = result as Record<string, number>;
    const line =
      `bench orders=${o.orders} files=${result.files as number} floor_s=${fmt(r.floor_s!, 2)} board_visible_s=${fmt(r.board_visible_s!, 2)} cold_s=${fmt(r.cold_s!, 2)} cold_ratio=${fmt(r.cold_ratio!, 2)} ` +
      `floor_verified_s=${fmt(r.floor_verified_s!, 2)} cold_vs_verified=${fmt(r.cold_vs_verified!, 2)} ` +
      `warm_s=${fmt(r.warm_s!, 2)} verify_per_s=${fmt(r.verify_per_s!, 0)} incr_p95_ms=${fmt(r.incr_p95_ms!, 0)} ` +
      `api_board_p95_ms=${fmt(r.api_board_p95_ms!, 1)} api_order_p95_ms=${fmt(r.api_order_p95_ms!, 1)} api_holds_p95_ms=${fmt(r.api_holds_p95_ms!, 1)} rss_mb=${fmt(r.rss_mb!, 0)} rss_indexer_mb=${fmt(r.rss_indexer_mb!, 0)} rss_web_mb=${fmt(r.rss_web_mb!, 0)} paint_ms=${fmt(r.paint_ms!, 0)} cli_state_ms=${fmt(r.cli_state_ms!, 0)} verifier=${String(result.verifier)}`;
    fs.writeFileSync(path.join(o.cache, `bench-last-${o.orders}.json`), JSON.stringify({ ...result, table: rows, line, at: new Date().toISOString() }, null, 2));
    finalLine = line;
  } finally {
    if (server) await server.stop();
    cleanupWrites();
    if (o.keep) log(`kept the index database: ${db}`);
    else fs.rmSync(work, { recursive: true, force: true });
  }
  // The table, then the line, last.
  for (const p of profiles) console.log(p);
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  console.log('');
  for (const [a, b, c] of rows) console.log(`${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`);
  console.log('');
  console.log(finalLine);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
    cleanupWrites();
    process.exit(1);
  },
);
