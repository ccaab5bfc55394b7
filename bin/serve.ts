/**
 * `claimboard serve [channel]` and `npm start`: the dashboard (the design "The embedded
 * default"). This process owns the index (the one writer); it runs the web server (bin/web.ts: Next.js behind a fast path) as a child
 * whose route handlers open the index read-only. With no channel configured it creates
 * `./.claimboard/demo` once and runs a simulated fleet in it.
 */
import { BUILD_STEPS, buildStepLine, buildStepOf } from './build-steps';
import { LocalOverlay } from '../lib/index/read/local-overlay';
import type { LocalDeath } from '../lib/index/writer/local-deaths';
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { closeWriter, openWriter } from '../lib/index/db';
import { Indexer } from '../lib/index/indexer';
import { IndexStore } from '../lib/index/store/store';
import { prepareLocal, startReaper, type PreparedLocal } from './serve-local';
import type { ServeLocal } from './serve-local-options';
import { settings } from '../lib/config';
import { PROJECT_DIR } from './project-dir';
import { staleAfterMsFor } from './stale-after-for';
import { readFerryPins, readFleetRoster } from '../lib/index/ferryman-state';
import { readDemoManifest } from '../lib/demo/manifest';
import { ensureDemoChannel } from '../lib/demo/scenario';
import { startFleet, type Fleet } from '../lib/demo/fleet';
import { ensureReaperStory } from '../lib/demo/reaper-story';
import { listenForNudges, nudgeSocketPath } from '../lib/index/nudge';
import { AlertEngine, targetLabel, type AlertTarget } from '../lib/alerts/engine';
import { clearConfig } from '../lib/alerts/store';
import { servedHosts } from '../lib/security';
import { portHolders } from '../lib/local/proc';
import { soloChannelName, soloRegistryFile, writeRegistry } from '../lib/hub/registry';

/** How long the web server may take to stop after SIGTERM before it is killed, ms. */
const WEB_STOP_GRACE_MS = 5000;

/** Seconds between the demo's reaper passes (its stale_after is 30 s: a dead run is reaped 30-35 s after it died). */
const DEMO_REAP_EVERY_S = 5;

export { PROJECT_DIR } from './project-dir';

export interface ServeOptions {
  readonly channel?: string;
  readonly port: number;
  readonly host: string;
  /** stale_after in seconds (default 300; 30 for the demo, so its stale lane fills within a minute). */
  readonly staleAfterS?: number;
  /** Index database file (default ./.claimboard/index/<hash of the channel path>.sqlite). */
  readonly db?: string;
  /** A ferry FERRYMAN_STATE_DIR whose fleet roster ferry on this machine trusts (ferryman-state.ts). */
  readonly ferrymanState?: string;
  /** A ferry agents-pinned/ folder: its keys are pinned in the index, replacing claimboard's own pins. */
  readonly ferrymanPins?: string;
  /** Webhooks each alert is POSTed to (`--alert-webhook`, repeatable; docs/alerts.md). */
  readonly alertWebhooks?: readonly URL[];
  /** A shell command run per alert with the JSON on its standard input (`--alert-command`). */
  readonly alertCommand?: string;
  /** The alerts' quiet period, seconds (`--alert-after`, default 0). */
  readonly alertAfterS?: number;
  /** The board's address in alert links (`--alert-base-url`, default http://<host>:<port>). */
  readonly alertBaseUrl?: string;
  /** Addresses readers reach the board at besides host:port (`--public-url`): their hosts are answered too (lib/security.ts servedHosts). */
  readonly publicUrls?: readonly string[];
  /** Order folders watched at most (`--max-watches`, default DEFAULT_WATCH_BUDGET in lib/index/writer/watches.ts). */
  readonly maxWatches?: number;
  /** This machine's agents and the opt-in reaper (bin/serve-local.ts). */
  readonly local?: ServeLocal;
}

/** Where `serve` keeps the index of a channel by default: ./.claimboard/index/<hash of its absolute path>.sqlite. */
export function defaultDbFile(channel: string): string {
  return path.resolve('.claimboard', 'index', `${createHash('sha256').update(path.resolve(channel)).digest('hex').slice(0, 16)}.sqlite`);
}

/**
 * Finds Next's CLI where Node would (npm may hoist `next` beside the package instead of inside
 * it) and makes sure the dashboard is built: an installed package ships its `.next` build
 * (npm pack runs `next build --webpack` first); a checkout builds it on its first start.
 */
export async function ensureDashboard(): Promise<{ ok: true; nextBin: string } | { ok: false; why: string }> {
  let nextBin: string;
  try {
    nextBin = createRequire(path.join(PROJECT_DIR, 'package.json')).resolve('next/dist/bin/next');
  } catch {
    return { ok: false, why: `next is not installed beside ${PROJECT_DIR}: run \`npm ci\` there (or reinstall the package)` };
  }
  if (fs.existsSync(path.join(PROJECT_DIR, '.next', 'BUILD_ID'))) return { ok: true, nextBin };
  if (!fs.existsSync(path.join(PROJECT_DIR, 'app'))) {
    return { ok: false, why: `the package in ${PROJECT_DIR} has no built dashboard (.next/BUILD_ID): it was packed without \`npm pack\`'s prepack build; reinstall it` };
  }
  console.log(`claimboard: building the dashboard (first start only; ${BUILD_STEPS.length} steps, 1-3 min on 2 cores); the index is read meanwhile`);
  // Webpack, not Turbopack: Turbopack names native externals by a hash behind a symlink in
  // .next/node_modules that a package tarball cannot carry (docs/deploy.md). Not spawnSync: the
  // indexer goes on meanwhile (its "ready in" is its own time). Next's lines become "step n of m";
  // its route table stays out of the terminal; the whole output is shown if the build fails.
  const started = Date.now();
  const out: string[] = [];
  let step = 0;
  let stepAt = started;
  const status = await new Promise<number | null>((resolve) => {
    const b = spawn(process.execPath, [nextBin, 'build', '--webpack'], { cwd: PROJECT_DIR, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
    const read = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        out.push(line);
        const n = buildStepOf(line);
        if (n !== null && n > step) {
          const now = Date.now();
          console.log(`claimboard: ${buildStepLine(n, step === 0 ? null : now - stepAt)}`);
          step = n;
          stepAt = now;
        }
      }
    };
    b.stdout.on('data', read);
    b.stderr.on('data', read);
    b.on('error', () => resolve(null));
    b.on('close', (code) => resolve(code));
  });
  if (status !== 0) {
    process.stderr.write(out.join('\n') + '\n');
    return { ok: false, why: 'next build failed (its output above)' };
  }
  console.log(`claimboard: dashboard built in ${Math.round((Date.now() - started) / 1000)} s`);
  return { ok: true, nextBin };
}

const isLoopback = (h: string) => h === '127.0.0.1' || h === 'localhost' || h === '::1' || h.startsWith('127.');

/** The board's address for alert links when none is given: the serve address (this machine's name for a wildcard bind). */
export function defaultBaseUrl(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '::' ? os.hostname() : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

/**
 * Why `host`:`port` cannot be served, naming what holds it, or null when it is free (tried by
 * listening on it and closing again at once).
 */
export async function portHeld(host: string, port: number): Promise<string | null> {
  const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    const probe = net.createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => resolve(e));
    probe.listen(port, host, () => probe.close(() => resolve(null)));
  });
  if (!error) return null;
  if (error.code !== 'EADDRINUSE') return `cannot listen on ${host}:${port}: ${error.message}`;
  const holders = portHolders(port);
  const who = holders.length
    ? holders.map((h) => `pid ${h.pid} (${h.command || 'command unknown'})`).join(', ')
    : 'a process this user cannot see';
  const ours = holders.some((h) => /claimboard\.mjs web\b/.test(h.command));
  return `port ${port} on ${host} is already in use, held by ${who}${ours ? ': a claimboard web server whose serve is gone; stop it (kill <pid>) and start again' : ''}`;
}

/**
 * Whether `serve` may listen on `host`:`port`: a host other machines reach needs the read token
 * (2 without it; warned with it), and the port must be free (1, naming what holds it). Null: it may.
 */
export async function addressRefused(host: string, port: number): Promise<number | null> {
  if (!isLoopback(host)) {
    if (!settings.readToken()) {
      console.error(`claimboard: --host ${host} is reachable from other machines: set CLAIMBOARD_READ_TOKEN to a secret first (readers open the board with ?token=<it>)`);
      return 2;
    }
    console.warn(`claimboard: WARNING: serving on ${host}, reachable from other machines; readers need the read token (CLAIMBOARD_READ_TOKEN).`);
  }
  const held = await portHeld(host, port);
  if (held) {
    console.error(`claimboard: ${held}`);
    return 1;
  }
  return null;
}

/** How much nicer than the web server the indexer's thread runs (Linux nice steps). */
const INDEXER_NICE = 5;

/**
 * Lowers the CPU priority of this thread (the indexer's: its looks, passes and SQLite writes,
 * and the threads it starts from now on) below the web server's, which was started before and
 * keeps its own. On 2 cores at 1,000,000 orders the indexer used 15.7 s of CPU during the bench's
 * 20 s of API load and the web server got 12.5 s: requests an operator waits on queued behind
 * index work that can wait. With the cores idle the indexer runs at full speed as before. On
 * Linux the nice value is per thread. Best effort: where it cannot be changed, nothing else does.
 */
function yieldToWeb(): void {
  try {
    os.setPriority(0, Math.min(19, os.getPriority(0) + INDEXER_NICE));
  } catch {
    /* not permitted here: the indexer keeps the web server's priority */
  }
}

/** Runs until interrupted or until the web server exits. Resolves to the exit code. */
export async function serve(opts: ServeOptions): Promise<number> {
  const configured = opts.channel ?? settings.channel();
  const demo = !configured;
  let channel: string;
  let operatorKey: string | null = null;
  if (demo) {
    const d = ensureDemoChannel(path.resolve('.claimboard/demo'));
    channel = d.dir;
    operatorKey = d.operatorKeyPath;
    console.log(`claimboard: ${d.created ? 'created' : 'using'} the demo channel ${channel}`);
  } else {
    channel = path.resolve(configured);
  }
  // The demo's fleet goes stale after 30 s, so its Stale lane fills within a minute.
  const staleAfterMs = staleAfterMsFor(channel, opts.staleAfterS);
  const dbFile = path.resolve(opts.db ?? settings.dbFile() ?? defaultDbFile(channel));
  const refused = await addressRefused(opts.host, opts.port);
  if (refused !== null) return refused;

  let local: PreparedLocal;
  try {
    const given: ServeLocal = opts.local ?? { localAgents: [], ferrymanWorkspaces: [], reaps: [] };
    let localOpts = given;
    if (demo) {
      // The demo's workers run here (its fleet's runs are real child processes): their pids are
      // checked here. Its reaper story (lib/demo/reaper-story.ts): two more local workers whose
      // runs died here, one reaped under reset and one under hold, every DEMO_REAP_EVERY_S, the
      // state beside the demo (unless --reap-state); an agent reaped by a flag keeps the flag's policy.
      const story = await ensureReaperStory(channel);
      const flagged = new Set(given.reaps.map((r) => r.agent.trim().toLowerCase()));
      localOpts = {
        ...given,
        localAgents: [...given.localAgents, ...readDemoManifest(channel).workers, ...story.reaps.map((r) => r.agent)],
        reaps: [...given.reaps, ...story.reaps.filter((r) => !flagged.has(r.agent)).map((r) => ({ ...r, everyS: DEMO_REAP_EVERY_S }))],
        reapState: given.reapState ?? path.resolve('.claimboard/reaper'),
      };
    }
    local = prepareLocal(localOpts, {
      channel,
      staleAfterMs,
      ...(opts.ferrymanState ? { ferrymanState: path.resolve(opts.ferrymanState) } : {}),
      operators: settings.operators(),
      fleetAgents: opts.ferrymanState ? readFleetRoster(path.resolve(opts.ferrymanState)) : [],
    });
  } catch (e) {
    console.error(`claimboard: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
  for (const line of local.lines) console.log(`claimboard: ${line}`);

  const db = openWriter(dbFile, (why) => console.warn(`claimboard: ${why}`));
  // The web server learns its channels from the registry: here, the one.
  const registryFile = soloRegistryFile(dbFile);
  writeRegistry(registryFile, [{ name: soloChannelName(channel), root: channel, db: dbFile, state: 'served', why: null, since_ms: Date.now() }]);
  const fleetAgents = opts.ferrymanState ? readFleetRoster(path.resolve(opts.ferrymanState)) : [];
  if (opts.ferrymanState) console.log(`claimboard: trusting ferry's fleet roster in ${opts.ferrymanState} (${fleetAgents.length} entries)`);
  if (opts.ferrymanPins) {
    // ferry's pins are what ferry on this machine verifies against: they replace claimboard's own.
    const pins = readFerryPins(path.resolve(opts.ferrymanPins));
    new IndexStore(db).replacePins(pins, Date.now());
    console.log(`claimboard: pinned ${pins.size} key(s) from ${opts.ferrymanPins}`);
  }
  // Alerts (lib/alerts): decided after each index pass, delivered off the indexer's path.
  const targets: AlertTarget[] = [
    ...(opts.alertWebhooks ?? []).map((url) => ({ kind: 'webhook' as const, url })),
    ...(opts.alertCommand ? [{ kind: 'command' as const, command: opts.alertCommand }] : []),
  ];
  const alerts =
    targets.length > 0
      ? new AlertEngine({
          db,
          channel,
          staleAfterMs,
          targets,
          afterMs: (opts.alertAfterS ?? 0) * 1000,
          baseUrl: opts.alertBaseUrl ?? defaultBaseUrl(opts.host, opts.port),
          log: (line) => console.log(`claimboard: ${line}`),
        })
      : null;
  if (alerts) {
    console.log(
      `claimboard: alerts to ${targets.map(targetLabel).join(', ')}${opts.alertAfterS ? ` after a quiet period of ${opts.alertAfterS} s` : ''}, linking to ${alerts.config.base_url}`,
    );
  } else {
    clearConfig(db);
    if (opts.alertAfterS !== undefined || opts.alertBaseUrl !== undefined) console.warn('claimboard: --alert-after and --alert-base-url do nothing without --alert-webhook or --alert-command');
  }
  const indexer = new Indexer({
    root: channel,
    db,
    staleAfterMs,
    operators: settings.operators(),
    fleetAgents,
    log: (line) => console.log(`claimboard: ${line}`),
    onSettled: alerts ? () => alerts.poke() : undefined,
    // A rebuilt index (the database deleted or replaced while serving): the alerts follow it.
    onRebuilt: alerts ? (rebuilt) => alerts.useDb(rebuilt) : undefined,
    // This machine's reaper holds count as flags in the index (docs/reaper.md).
    reaperState: local.stateDir,
    // A local agent's run whose process is gone here leaves Running at once (lib/index/writer/local-deaths.ts).
    ...(local.agents.engines.size > 0 ? { localDeath: localDeathOf(new LocalOverlay({ local: local.agents, stateDir: local.stateDir, channel })) } : {}),
    ...(opts.maxWatches !== undefined ? { maxWatches: opts.maxWatches } : {}),
  });
  let child: ChildProcess | null = null;
  // The web server starts at once; the page shows indexing progress until the first index is done.
  // Alerts start deciding once it is (a warm start's board is the last run's until then).
  const indexing = indexer.start().then(
    () => alerts?.start(),
    (e: unknown) => {
      console.error(`claimboard: ${e instanceof Error ? e.message : String(e)}`);
      process.exitCode = 1;
      child?.kill('SIGTERM');
    },
  );

  const built = await ensureDashboard();
  if (!built.ok) {
    console.error(`claimboard: ${built.why}`);
    await alerts?.stop();
    await indexer.stop();
    closeWriter(db);
    return 1;
  }

  // The web server tells the indexer what an operator action wrote (lib/index/nudge.ts).
  const nudgeSocket = nudgeSocketPath();
  const stopNudges = await listenForNudges(nudgeSocket, (rel) => indexer.request(rel)).catch((e: unknown) => {
    console.warn(`claimboard: no nudge socket (${e instanceof Error ? e.message : String(e)}); actions show when the folder is next looked at`);
    return null;
  });

  // The opt-in reaper, one per reaped agent: after the first index, so its first pass is not raced by the cold start.
  const stopReapers: (() => void)[] = [];
  if (local.reaps.length > 0) {
    void indexing.then(() => {
      for (const { config, everyMs } of local.reaps) stopReapers.push(startReaper(config, everyMs, (rel) => indexer.request(rel), (line) => console.log(`claimboard: ${line}`)));
    });
  }

  let fleet: Fleet | null = null;
  if (demo) {
    await indexing;
    // It keeps going for hours: a death, a give-up or a steer every few minutes at most, give-ups
    // acknowledged by ops after a while, finished orders archived at the bound (lib/demo/fleet.ts).
    fleet = startFleet(channel, {
      staleAfterMs,
      realProcesses: true,
      maxDeaths: Infinity,
      maxGiveups: Infinity,
      maxSteers: Infinity,
      archiveAtBound: true,
      paceMs: 4 * staleAfterMs,
      ackAfterMs: 6 * staleAfterMs,
    });
    console.log(`claimboard: a simulated fleet is writing into the demo channel (stale after ${staleAfterMs / 1000} s)`);
    if (operatorKey) console.log(`claimboard: demo operator key (import it in the page to act as ops): ${operatorKey}`);
  }

  const web = startWeb(opts.host, opts.port, [...(opts.publicUrls ?? []), ...(opts.alertBaseUrl ? [opts.alertBaseUrl] : [])], {
    // The channel and its stale_after reach the web process through the index (the indexer records both).
    CLAIMBOARD_DB: dbFile,
    CLAIMBOARD_HUB: registryFile,
    ...(opts.ferrymanState ? { CLAIMBOARD_FERRYMAN_STATE: path.resolve(opts.ferrymanState) } : {}),
    ...(stopNudges ? { CLAIMBOARD_NUDGE_SOCKET: nudgeSocket } : {}),
    ...(operatorKey ? { CLAIMBOARD_DEMO_OPERATOR_KEY: operatorKey } : {}),
    ...local.env,
  });
  child = web;
  console.log(`claimboard: serving ${channel} at http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${opts.port}`);

  return await untilStopped(web, async () => {
    await fleet?.stop();
    for (const stop of stopReapers) stop();
    stopNudges?.();
    await alerts?.stop();
    await indexer.stop();
    try {
      closeWriter(db);
    } catch {
      /* already closed */
    }
  });
}

/**
 * Starts the web process (bin/web.ts: Next.js behind a fast path for the polled read endpoints)
 * on `host`:`port`, with `env` over this process's environment, its output passed on; this
 * thread then yields to it (yieldToWeb). `publicUrls`: the other addresses readers reach it at.
 */
export function startWeb(host: string, port: number, publicUrls: readonly string[], env: Readonly<Record<string, string>>): ChildProcess {
  // V8 sized for memory:
  // a smaller young generation and an old generation grown by 25% of what is live instead of up
  // to 4x: the web server's peak 309 -> 153 MB, request p95 29 -> 35 ms.
  const web = spawn(process.execPath, ['--max-semi-space-size=4', '--heap-growing-percent=25', path.join(PROJECT_DIR, 'bin', 'claimboard.mjs'), 'web', '--host', host, '--port', String(port), '--exit-with-stdin'], {
    cwd: PROJECT_DIR,
    // stdin: a pipe this process never writes: it closes when this process dies, however it
    // dies, and the web server stops then. stdout: read here, for Next.js's own status lines.
    stdio: ['pipe', 'pipe', 'inherit'],
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: '1',
      CLAIMBOARD_SERVED_HOSTS: servedHosts(host, port, {
        publicUrls: [...publicUrls],
        interfaces: Object.values(os.networkInterfaces()).flatMap((l) => (l ?? []).map((i) => i.address)),
        hostname: os.hostname(),
      }).join(','),
      ...env,
    },
  });
  passWebOutput(web);
  yieldToWeb();
  return web;
}

/**
 * Runs until interrupted (SIGINT: 130, SIGTERM: 143) or until the web server exits (its code, or
 * this process's exit code when one was set): then stops the web server, `stopRest` (the
 * indexing side), and resolves to the exit code once both are done.
 */
export function untilStopped(web: ChildProcess, stopRest: () => Promise<void>): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    const webGone = new Promise<void>((r) => (web.exitCode !== null || web.signalCode !== null ? r() : web.once('exit', () => r())));
    const shutdown = async (code: number) => {
      if (stopping) return;
      stopping = true;
      // The web server waits on SIGTERM for every open response to end, and a board tab's event
      // stream never does by itself (the events route ends its own): past the grace it is killed. It only reads the
      // index, and an action's write is temp + rename (a temp file at worst).
      let grace: NodeJS.Timeout | undefined;
      if (web.exitCode === null && web.signalCode === null) {
        web.kill('SIGTERM');
        grace = setTimeout(() => {
          console.warn(`claimboard: the web server did not stop within ${WEB_STOP_GRACE_MS / 1000} s of SIGTERM: killed`);
          web.kill('SIGKILL');
        }, WEB_STOP_GRACE_MS);
      }
      await stopRest();
      await webGone;
      clearTimeout(grace);
      resolve(code);
    };
    process.once('SIGINT', () => void shutdown(130));
    process.once('SIGTERM', () => void shutdown(143));
    web.on('exit', (code) => void shutdown(process.exitCode !== undefined && process.exitCode !== 0 ? Number(process.exitCode) : (code ?? 1)));
  });
}

/** The indexer's question about local runs, answered by this machine's /proc (the board's own overlay). */
function localDeathOf(overlay: LocalOverlay): LocalDeath {
  return { agents: overlay.agents(), isDead: (db, card, nowMs) => overlay.isDead(db, card, nowMs) };
}

/**
 * The web server's output, line by line, on this process's: everything but Next.js's own
 * status lines ("✓ Running next.config.mjs took 58ms"), which say nothing to an operator.
 */
function passWebOutput(web: ChildProcess): void {
  let rest = '';
  web.stdout?.setEncoding('utf8');
  web.stdout?.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (!/^\s*[✓○▲]\s/.test(line)) process.stdout.write(`${line}\n`);
  });
  web.stdout?.on('end', () => {
    if (rest !== '' && !/^\s*[✓○▲]\s/.test(rest)) process.stdout.write(`${rest}\n`);
  });
}
