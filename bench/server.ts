/**
 * The server under test: the real `claimboard serve` (bin/claimboard.mjs) on a channel, spawned in a
 * process group of its own, with its RSS sampled; waits for its index to be ready (the "index: ready"
 * line or the database's progress), for its first HTTP 200 and for its folder watcher, and stops it
 * by PID. And the production build it serves (`ensureBuild`: built when missing, a warning when older
 * than a source).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { f1, get, inotifyWatches, killGroup, log, RssSampler, sec, sleep, started, watchServe } from './harness';

export const PROJECT_DIR = path.resolve(import.meta.dirname, '..');

export interface ReadyInfo {
  /** Spawn to the "index: ready" line, ms. */
  readonly wallMs: number;
  /** The indexer's own figure (start() to ready), s. */
  readonly ownS: number | null;
  readonly verified: number | null;
  /** The verifier the server's "ready" line names (lib/index/disk/verifier.ts), or null when it names none. */
  readonly verifier: string | null;
  /** What the indexer said after "ready in X s: " (counts of what it saw, read, verified). */
  readonly detail: string;
  /** First time each progress phase was seen in the database (ms after spawn). */
  readonly phases: Record<string, number>;
  /** Spawn to the "index: board visible" line (the board shown before its signatures are checked), ms; the ready time when there was no such phase. */
  readonly boardVisibleMs: number;
}

export class Server {
  readonly proc: ChildProcess;
  readonly rss: RssSampler;
  readonly t0 = performance.now();
  readonly spawnEpochMs = Date.now();
  private lines: string[] = [];
  private readyLine: { at: number; text: string } | null = null;
  private boardLine: { at: number; text: string } | null = null;
  exited: number | null = null;
  readonly exitP: Promise<void>;

  constructor(
    readonly channel: string,
    readonly port: number,
    readonly db: string,
    readonly staleAfterS: number,
    readonly profDir: string | null,
  ) {
    const nodeArgs = profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [];
    this.proc = spawn(
      process.execPath,
      [...nodeArgs, path.join(PROJECT_DIR, 'bin', 'claimboard.mjs'), 'serve', channel, '--port', String(port), '--host', '127.0.0.1', '--db', db, '--stale-after', String(staleAfterS)],
      {
        cwd: PROJECT_DIR,
        detached: true, // its own process group: the bench kills the group by PID
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_OPTIONS: '' },
      },
    );
    const pid = this.proc.pid;
    if (!pid) throw new Error('claimboard serve did not start');
    started.add(pid);
    this.rss = new RssSampler(pid);
    const onLine = (line: string) => {
      this.lines.push(line);
      if (this.lines.length > 200) this.lines.shift();
      if (!this.readyLine && /index: ready in/.test(line)) this.readyLine = { at: performance.now(), text: line };
      if (!this.boardLine && /index: board visible in/.test(line)) this.boardLine = { at: performance.now(), text: line };
    };
    this.exitP = watchServe(this.proc, pid, this.rss, onLine, (code) => (this.exited = code));
  }

  tail(n = 15): string {
    return this.lines.slice(-n).join('\n');
  }

  /** Waits for the first complete index: the "index: ready" line, or the database's progress phase `ready`. */
  async waitReady(timeoutS: number): Promise<ReadyInfo> {
    const deadline = this.t0 + timeoutS * 1000;
    const phases: Record<string, number> = {};
    let dbReadyAt: number | null = null;
    let reader: Database.Database | null = null;
    let progress: { phase?: string; files_verified?: number; files_seen?: number; files_read?: number; ready_at_ms?: number | null } = {};
    try {
      while (!this.readyLine) {
        if (this.exited !== null) throw new Error(`claimboard serve exited (${this.exited}) before the index was ready:\n${this.tail()}`);
        if (performance.now() > deadline) throw new Error(`the index was not ready within ${timeoutS} s:\n${this.tail()}`);
        try {
          if (!reader && fs.existsSync(this.db)) reader = new Database(this.db, { readonly: true, fileMustExist: true });
          const row = reader?.prepare("SELECT value FROM meta WHERE key = 'progress'").get() as { value: string } | undefined;
          if (row) {
            progress = JSON.parse(row.value) as typeof progress;
            // A database kept from an earlier run says `ready` until this indexer starts: only a
            // ready stamped after the spawn counts.
            const fresh = progress.phase !== 'ready' || (progress.ready_at_ms ?? 0) >= this.spawnEpochMs;
            if (fresh && progress.phase && !(progress.phase in phases)) phases[progress.phase] = performance.now() - this.t0;
            if (fresh && progress.phase === 'ready' && dbReadyAt === null) dbReadyAt = this.t0 + ((progress.ready_at_ms ?? 0) - this.spawnEpochMs);
          }
        } catch {
          /* not created yet */
        }
        if (dbReadyAt !== null && performance.now() - dbReadyAt > 2000) break; // no log line: trust the database
        await sleep(100);
      }
    } finally {
      reader?.close();
    }
    const at = this.readyLine?.at ?? dbReadyAt ?? performance.now();
    const text = this.readyLine?.text ?? '';
    // "index: ready in X s: <what it saw, read, verified>"; the database's progress when absent.
    const own = /ready in ([\d.]+) s/.exec(text);
    const verified = /(\d+) signatures verified/.exec(text);
    const verifier = /signatures verified \(([^)]+)\)/.exec(text);
    phases.ready = at - this.t0;
    return {
      wallMs: at - this.t0,
      ownS: own ? Number(own[1]) : null,
      verified: verified ? Number(verified[1]) : (progress.files_verified ?? null),
      verifier: verifier?.[1] ?? null,
      detail: /ready in [\d.]+ s: (.*)$/.exec(text)?.[1] ?? `${progress.files_seen ?? '?'} seen, ${progress.files_read ?? '?'} read`,
      phases,
      boardVisibleMs: (this.boardLine?.at ?? at) - this.t0,
    };
  }

  /** Waits until GET /api/board answers 200 with the index ready; returns ms since spawn. */
  async waitHttp(timeoutS: number): Promise<number> {
    const agent = new http.Agent({ keepAlive: false });
    const deadline = performance.now() + timeoutS * 1000;
    try {
      for (;;) {
        if (this.exited !== null) throw new Error(`claimboard serve exited (${this.exited}):\n${this.tail()}`);
        try {
          const r = await get(this.port, '/api/board', agent, 5000);
          if (r.status === 200 && (JSON.parse(r.body) as { progress?: { phase?: string } }).progress?.phase === 'ready') return performance.now() - this.t0;
        } catch {
          /* not listening yet */
        }
        if (performance.now() > deadline) throw new Error(`no HTTP 200 from /api/board within ${timeoutS} s:\n${this.tail()}`);
        await sleep(100);
      }
    } finally {
      agent.destroy();
    }
  }

  /**
   * Waits until the indexer's folder watcher is subscribed: its inotify watch count (summed over
   * its inotify descriptors, /proc/<pid>/fdinfo) is above zero and unchanged for 1.5 s. Returns
   * ms since spawn and the count, or null when no watch appeared within `timeoutS`.
   */
  async waitWatcher(timeoutS: number): Promise<{ ms: number; watches: number } | null> {
    const pid = this.proc.pid as number;
    const deadline = performance.now() + timeoutS * 1000;
    let last = -1;
    let stableSince = 0;
    let lastChange = performance.now();
    while (performance.now() < deadline && this.exited === null) {
      const watches = inotifyWatches(pid);
      if (watches === null) return null;
      if (watches !== last) {
        last = watches;
        lastChange = performance.now();
        stableSince = 0;
      } else if (watches > 0) {
        stableSince ||= performance.now();
        if (performance.now() - stableSince >= 1500) return { ms: lastChange - this.t0, watches };
      }
      await sleep(500);
    }
    return null;
  }

  /**
   * SIGTERM (serve stops next and the indexer, closes the database, and exits); SIGKILL after
   * `graceS` (a CPU profile is only written on a graceful exit, and writing a big one takes a while).
   */
  async stop(graceS = 15): Promise<void> {
    const pid = this.proc.pid as number;
    if (this.exited === null) {
      const t = performance.now();
      let killed = false;
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        /* gone */
      }
      const timer = setTimeout(() => {
        killed = true;
        killGroup(pid, 'SIGKILL');
      }, graceS * 1000);
      await this.exitP;
      clearTimeout(timer);
      log(`claimboard serve (pid ${pid}) ${killed ? `did not exit within ${graceS} s of SIGTERM: killed` : `exited ${f1(sec(performance.now() - t))} s after SIGTERM`}`);
    }
    killGroup(pid, 'SIGKILL');
  }
}

export function ensureBuild(): void {
  const buildId = path.join(PROJECT_DIR, '.next', 'BUILD_ID');
  if (!fs.existsSync(buildId)) {
    log('no production build (.next/BUILD_ID): running next build first');
    const b = spawnSync(process.execPath, [path.join(PROJECT_DIR, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build', '--webpack'], {
      cwd: PROJECT_DIR,
      stdio: 'inherit',
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_OPTIONS: '' },
      timeout: 15 * 60_000,
    });
    if (b.status !== 0) throw new Error('next build failed');
    return;
  }
  const built = fs.statSync(buildId).mtimeMs;
  let newest = 0;
  let newestPath = '';
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(tsx?|css|mjs)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) {
        const m = fs.statSync(p).mtimeMs;
        if (m > newest) [newest, newestPath] = [m, p];
      }
    }
  };
  for (const d of ['app', 'components', 'lib']) if (fs.existsSync(path.join(PROJECT_DIR, d))) walk(path.join(PROJECT_DIR, d));
  if (newest > built) log(`WARNING: the production build is older than ${path.relative(PROJECT_DIR, newestPath)}: the API and paint figures measure the old build (run \`npm run build\`)`);
}
