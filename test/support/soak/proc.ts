/**
 * Processes the soak starts and watches: the real `claimboard serve` (bin/claimboard.mjs, its own
 * process group, 127.0.0.1 on a free port), the fleet's process, and what /proc says about
 * every claimboard process (VmRSS, open descriptors). Everything started here is remembered by
 * pid and killed (its group, SIGKILL) by {@link killAll}, which the callers run at the end, on
 * errors and on signals.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import type { SoakWrite } from './fleet';

export const REPO = path.resolve(import.meta.dirname, '../../..');

/**
 * Whether the production build `claimboard serve` serves is there (`.next/BUILD_ID`). Without it
 * serve would build the dashboard itself (a minute or more, and racing any other build), so the
 * tests that start serve skip and say so; scripts/test.sh runs them after its `next build` step.
 */
export function dashboardBuilt(): boolean {
  return fs.existsSync(path.join(REPO, '.next', 'BUILD_ID'));
}
const started = new Set<number>();
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* gone */
  }
}

/** SIGKILLs the process group of everything started here that is still running. */
export function killAll(): void {
  for (const pid of started) killGroup(pid, 'SIGKILL');
  started.clear();
}

const temps = new Set<string>();
/** A temp folder to remove with {@link removeTemps} (e.g. on Ctrl-C). */
export function addTemp(dir: string): void {
  temps.add(dir);
}
/** Removes every folder {@link addTemp} named, or only `dir`. */
export function removeTemps(dir?: string): void {
  for (const d of dir ? [dir] : [...temps]) {
    fs.rmSync(d, { recursive: true, force: true });
    temps.delete(d);
  }
}

/** A free TCP port on 127.0.0.1 (the kernel's pick; closed again before returning). */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface Got {
  readonly status: number;
  readonly body: string;
}
/** GET http://127.0.0.1:port/path through `agent`; rejects after `timeoutMs` without a full answer. */
export function get(port: number, p: string, agent: http.Agent | false, timeoutMs = 30_000): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: p, agent, method: 'GET', headers: { accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`GET ${p}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Every descendant pid of `pid` (children of each of its threads, recursively). */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  const visit = (p: number) => {
    let tasks: string[];
    try {
      tasks = fs.readdirSync(`/proc/${p}/task`);
    } catch {
      return;
    }
    for (const t of tasks) {
      let kids: string;
      try {
        kids = fs.readFileSync(`/proc/${p}/task/${t}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const k of kids.split(/\s+/).filter(Boolean).map(Number)) {
        out.push(k);
        visit(k);
      }
    }
  };
  visit(pid);
  return out;
}

/** One process as /proc shows it: resident memory (kB) and open descriptors. */
export interface ProcSample {
  readonly pid: number;
  readonly name: string;
  readonly rssKb: number;
  readonly fds: number;
}

/** VmRSS and the descriptor count of `pid` and each of its descendants (a process gone meanwhile is left out). */
export function sampleTree(root: number): ProcSample[] {
  const out: ProcSample[] = [];
  for (const pid of [root, ...descendants(root)]) {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const rss = /^VmRSS:\s+(\d+) kB/m.exec(status);
      const fds = fs.readdirSync(`/proc/${pid}/fd`).length;
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      // "node .../claimboard.mjs serve" and "node .../claimboard.mjs web": the script and its verb.
      const script = cmd.find((a) => /claimboard\.mjs$|[/\\]next$/.test(a));
      const name = script ? `${path.basename(script)} ${cmd[cmd.indexOf(script) + 1] ?? ''}`.trim() : path.basename(cmd[0] ?? String(pid));
      out.push({ pid, name, rssKb: rss ? Number(rss[1]) : 0, fds });
    } catch {
      /* exited between the listing and the read */
    }
  }
  return out;
}

/** Options of {@link ServeProcess}. */
export interface ServeOptions {
  readonly channel: string;
  readonly db: string;
  readonly port: number;
  readonly staleAfterS: number;
  /** A command prefix (e.g. `unshare -U -r sh -c '...' --`) to run `node` under; default none. */
  readonly wrap?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

/** The real `claimboard serve` on 127.0.0.1, its output kept (the last 400 lines). */
export class ServeProcess {
  readonly proc: ChildProcess;
  readonly lines: string[] = [];
  exited: number | null = null;
  readonly exitP: Promise<void>;

  constructor(readonly opts: ServeOptions) {
    const argv = [
      process.execPath,
      path.join(REPO, 'bin', 'claimboard.mjs'),
      'serve',
      opts.channel,
      '--port',
      String(opts.port),
      '--host',
      '127.0.0.1',
      '--db',
      opts.db,
      '--stale-after',
      String(opts.staleAfterS),
    ];
    const [cmd, ...rest] = [...(opts.wrap ?? []), ...argv] as [string, ...string[]];
    this.proc = spawn(cmd, rest, {
      cwd: REPO,
      detached: true, // its own process group, killed by pid at the end
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_OPTIONS: '', ...(opts.env ?? {}) },
    });
    const pid = this.proc.pid;
    if (!pid) throw new Error('claimboard serve did not start');
    started.add(pid);
    for (const s of [this.proc.stdout, this.proc.stderr]) {
      if (!s) continue;
      readline.createInterface({ input: s }).on('line', (line) => {
        this.lines.push(line);
        if (this.lines.length > 400) this.lines.shift();
      });
    }
    this.exitP = new Promise((resolve) => {
      this.proc.on('exit', (code, signal) => {
        this.exited = code ?? (signal ? 128 : 1);
        started.delete(pid);
        killGroup(pid, 'SIGKILL'); // the web server, should it outlive its parent
        resolve();
      });
    });
  }

  /** The `claimboard serve` process (a wrapper such as `unshare ... sh -c 'exec ...'` execs it: the same pid). */
  get pid(): number {
    return this.proc.pid as number;
  }

  /** The last `n` lines it printed. */
  tail(n = 20): string {
    return this.lines.slice(-n).join('\n');
  }

  /** Waits until GET /api/board answers 200 with the index `ready`; throws on exit or after `timeoutS`. */
  async waitReady(timeoutS: number): Promise<void> {
    const deadline = Date.now() + timeoutS * 1000;
    for (;;) {
      if (this.exited !== null) throw new Error(`claimboard serve exited (${this.exited}):\n${this.tail()}`);
      try {
        const r = await get(this.opts.port, '/api/board', false, 5000);
        if (r.status === 200 && (JSON.parse(r.body) as { progress?: { phase?: string } }).progress?.phase === 'ready') return;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline) throw new Error(`the board was not ready within ${timeoutS} s:\n${this.tail()}`);
      await sleep(200);
    }
  }

  /** SIGTERM, then SIGKILL of its group after `graceS`. */
  async stop(graceS = 15): Promise<void> {
    if (this.exited === null) {
      try {
        process.kill(this.pid, 'SIGTERM');
      } catch {
        /* gone */
      }
      const timer = setTimeout(() => killGroup(this.pid, 'SIGKILL'), graceS * 1000);
      await this.exitP;
      clearTimeout(timer);
    }
    killGroup(this.pid, 'SIGKILL');
  }
}

/** The fleet's process (fleet-main.ts): commands in, writes out. */
export class FleetProcess {
  readonly proc: ChildProcess;
  readonly errors: string[] = [];
  private waiters: { prefix: string; resolve: (json: string) => void }[] = [];
  exited = false;

  constructor(root: string, args: Readonly<Record<string, number>>, onWrite: (w: SoakWrite) => void) {
    const flat = Object.entries(args).flatMap(([k, v]) => [`--${k}`, String(v)]);
    this.proc = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', path.join(REPO, 'test/support/soak/fleet-main.ts'), '--root', root, ...flat], {
      cwd: REPO,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    const pid = this.proc.pid;
    if (!pid) throw new Error('the fleet did not start');
    started.add(pid);
    if (this.proc.stdout) {
      readline.createInterface({ input: this.proc.stdout }).on('line', (line) => {
        if (line.startsWith('W ')) onWrite(JSON.parse(line.slice(2)) as SoakWrite);
        else if (line.startsWith('ERROR ')) this.errors.push(line.slice(6));
        for (const w of this.waiters.splice(0)) {
          if (line.startsWith(w.prefix + ' ')) w.resolve(line.slice(w.prefix.length + 1));
          else this.waiters.push(w);
        }
      });
    }
    this.proc.stderr?.on('data', (d: Buffer) => this.errors.push(d.toString('utf8').trim()));
    this.proc.on('exit', () => {
      this.exited = true;
      started.delete(pid);
    });
  }

  /** The next line starting with `prefix` (its JSON), or an error after `timeoutMs` or when the fleet exits. */
  next(prefix: string, timeoutMs = 60_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the fleet said no ${prefix} within ${timeoutMs} ms: ${this.errors.join(' | ')}`)), timeoutMs);
      this.waiters.push({
        prefix,
        resolve: (s) => {
          clearTimeout(timer);
          resolve(s);
        },
      });
      this.proc.once('exit', () => reject(new Error(`the fleet exited: ${this.errors.join(' | ')}`)));
    });
  }

  send(command: string): void {
    this.proc.stdin?.write(command + '\n');
  }

  /** Tells it to exit; SIGKILL after 5 s. */
  async close(): Promise<void> {
    if (this.exited) return;
    const done = new Promise<void>((r) => this.proc.once('exit', () => r()));
    this.send('exit');
    this.proc.stdin?.end();
    const timer = setTimeout(() => killGroup(this.proc.pid as number, 'SIGKILL'), 5000);
    await done;
    clearTimeout(timer);
  }
}
