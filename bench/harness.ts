/**
 * What the bench's runs share (`npm run bench`, bench/run.ts, and its hub row, bench/hub.ts):
 * small figures, a bounded GET, the processes it starts (killed by process group, whatever
 * happens), and RSS and CPU read from /proc.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { descendants } from '../test/support/soak/proc';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const log = (line: string) => console.error(`bench: ${line}`);
export const sec = (ms: number) => ms / 1000;
export const f1 = (x: number) => x.toFixed(1);
export const f2 = (x: number) => x.toFixed(2);

export function pct(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const k = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[k] as number;
}
export function stats(xs: readonly number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p95: pct(s, 95), max: s.length ? (s[s.length - 1] as number) : NaN };
}

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
/** GET http://127.0.0.1:port/path with the given keep-alive agent; bounded by `timeoutMs`. */
export function get(port: number, p: string, agent: http.Agent, timeoutMs = 30_000): Promise<Got> {
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


// ---- processes we start: killed by PID (their process group) whatever happens ------------


export const started = new Set<number>();
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* gone */
  }
}
process.on('exit', () => {
  for (const pid of started) killGroup(pid, 'SIGKILL');
});

// ---- RSS and CPU (/proc) ----------------------------------------------------------------

export function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
export function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).map((a) => path.basename(a)).join(' ').slice(0, 80);
  } catch {
    return '?';
  }
}

/** CPU seconds (user + system, /proc/<pid>/stat) the processes `pids` have used so far; a process gone counts 0. */
export function cpuSeconds(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      /* exited */
    }
  }
  return ticks / 100; // USER_HZ, 100 on Linux
}

/** A run's RSS figures (MB): each process's own peak, and the peak of their sampled total with each one's share at that sample. */
export interface RssPeaks {
  /** VmHWM of the root process (`claimboard serve`: the indexer). */
  readonly indexerMb: number;
  /** VmHWM of the web side: the sum over the root's descendants (`claimboard web` and whatever it spawns). */
  readonly webMb: number;
  /** Each descendant's command line and VmHWM. */
  readonly web: string[];
  /** The highest sampled total VmRSS of the tree. */
  readonly totalMb: number;
  /** The indexer's and the web side's VmRSS at the sample where the total peaked. */
  readonly atPeak: { readonly indexerMb: number; readonly webMb: number };
}

/** Polls VmHWM (kernel's peak) and VmRSS of a process and its descendants every 200 ms. */
export class RssSampler {
  readonly hwmKb = new Map<number, number>();
  readonly names = new Map<number, string>();
  peakSumRssKb = 0;
  private atPeakKb = { indexer: 0, web: 0 };
  private timer: NodeJS.Timeout;
  constructor(private readonly root: number) {
    this.sample();
    this.timer = setInterval(() => this.sample(), 200);
  }
  sample(): void {
    let indexer = 0;
    let web = 0;
    for (const pid of [this.root, ...descendants(this.root)]) {
      const hwm = statusKb(pid, 'VmHWM');
      if (hwm === null) continue;
      if (!this.names.has(pid)) this.names.set(pid, cmdline(pid));
      this.hwmKb.set(pid, Math.max(hwm, this.hwmKb.get(pid) ?? 0));
      const rss = statusKb(pid, 'VmRSS') ?? 0;
      if (pid === this.root) indexer += rss;
      else web += rss;
    }
    if (indexer + web > this.peakSumRssKb) {
      this.peakSumRssKb = indexer + web;
      this.atPeakKb = { indexer, web };
    }
  }
  stop(): void {
    clearInterval(this.timer);
  }
  peaks(): RssPeaks {
    let web = 0;
    const names: string[] = [];
    for (const [pid, kb] of this.hwmKb) {
      if (pid === this.root) continue;
      web += kb;
      names.push(`${this.names.get(pid) ?? pid} ${f1(kb / 1024)} MB`);
    }
    return {
      indexerMb: (this.hwmKb.get(this.root) ?? 0) / 1024,
      webMb: web / 1024,
      web: names,
      totalMb: this.peakSumRssKb / 1024,
      atPeak: { indexerMb: this.atPeakKb.indexer / 1024, webMb: this.atPeakKb.web / 1024 },
    };
  }
}

/**
 * Watches a started `claimboard serve` (`pid`, its process group's leader): each line of its
 * output to `onLine`; at its exit, its code to `onExit`, its RSS sampled a last time and the
 * sampling stopped, and anything left of its process group killed. Resolves then.
 */
export function watchServe(proc: ChildProcess, pid: number, rss: RssSampler, onLine: (line: string) => void, onExit: (code: number) => void): Promise<void> {
  const onData = (buf: Buffer) => {
    for (const line of buf.toString('utf8').split('\n')) if (line.trim()) onLine(line);
  };
  proc.stdout?.on('data', onData);
  proc.stderr?.on('data', onData);
  return new Promise((resolve) => {
    proc.on('exit', (code, signal) => {
      onExit(code ?? (signal ? 128 : 1));
      rss.sample();
      rss.stop();
      started.delete(pid);
      killGroup(pid, 'SIGKILL'); // anything left in its group
      resolve();
    });
  });
}


/** The inotify watches process `pid` holds (summed over its inotify descriptors, /proc/<pid>/fdinfo), or null when it cannot be read. */
export function inotifyWatches(pid: number): number | null {
  let watches = 0;
  try {
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      let target = '';
      try {
        target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      if (target !== 'anon_inode:inotify') continue;
      const info = fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
      for (let k = info.indexOf('inotify wd:'); k >= 0; k = info.indexOf('inotify wd:', k + 1)) watches++;
    }
  } catch {
    return null;
  }
  return watches;
}
