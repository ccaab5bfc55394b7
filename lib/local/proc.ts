import 'server-only';
/**
 * One pid on this machine, from Linux's process table: whether it exists, when it
 * started, what it runs. Read only; sends no signal but the null one.
 *
 * - Exists: `kill(pid, 0)`. ESRCH is "no such process" in this pid namespace, whoever owns it;
 *   EPERM means it exists (another user's). /proc is not used for this: a /proc mounted with
 *   `hidepid` hides other users' processes, and "hidden" must never read as "dead".
 * - Started: /proc/<pid>/stat field 22 (`starttime`, clock ticks since boot) / CLK_TCK + /proc/stat
 *   `btime` (boot, whole seconds since the epoch): this machine's wall clock, the clock file ctimes
 *   are on. CLK_TCK is asked of `getconf CLK_TCK` once per process (sysconf(_SC_CLK_TCK): Linux's
 *   USER_HZ, 100 on x86 and arm); when getconf cannot answer, the start time is unknown rather
 *   than guessed. btime is truncated to the second, so the start computed errs early by < 1 s.
 * - Runs: /proc/<pid>/cmdline (argv, NUL-separated) and stat's `(comm)`.
 * Not Linux, or /proc unreadable: `unknown`, never `gone`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { ProcessFacts } from '../ledger/liveness';

/** Linux's hard ceiling on pids (PID_MAX_LIMIT, 2^22): a larger number was not written by a process here. */
const PID_MAX_LIMIT = 4_194_304;

let ticks: { readonly value: number | null; readonly why?: string } | undefined;

/** Clock ticks per second (`getconf CLK_TCK`, asked once per process; normally 100), or null with why when getconf cannot say. */
export function clockTicksPerSecond(): { readonly value: number | null; readonly why?: string } {
  if (ticks) return ticks;
  try {
    const out = execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const n = Number(out);
    ticks = Number.isInteger(n) && n > 0 ? { value: n } : { value: null, why: `getconf CLK_TCK said "${out}"` };
  } catch (e) {
    ticks = { value: null, why: `getconf CLK_TCK failed (${(e as NodeJS.ErrnoException).code ?? String(e)})` };
  }
  return ticks;
}

/** This machine's boot time, ms since the epoch, from /proc/stat `btime` (whole seconds), or null. */
export function bootTimeMs(): number | null {
  try {
    const m = /^btime\s+(\d+)\s*$/m.exec(fs.readFileSync('/proc/stat', 'utf8'));
    return m?.[1] ? Number(m[1]) * 1000 : null;
  } catch {
    return null;
  }
}

/** The fields of /proc/<pid>/stat this needs; null when it does not parse. `comm` may hold spaces and parentheses. */
export function parseStat(text: string): { readonly comm: string; readonly state: string; readonly ppid: number; readonly startTicks: number } | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  // After "pid (comm) " come fields 3 (state), 4 (ppid), ... 22 (starttime).
  const rest = text.slice(close + 2).trim().split(/\s+/);
  const state = rest[0];
  const ppid = Number(rest[1]);
  const startTicks = Number(rest[19]);
  if (!state || !Number.isInteger(ppid) || !Number.isInteger(startTicks)) return null;
  return { comm: text.slice(open + 1, close), state, ppid, startTicks };
}

type Exists = 'yes' | 'no' | { readonly why: string };

function exists(pid: number): Exists {
  try {
    process.kill(pid, 0);
    return 'yes';
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return 'no';
    if (code === 'EPERM') return 'yes';
    return { why: `kill(${pid}, 0) failed with ${code ?? String(e)}` };
  }
}

function readText(p: string): { readonly text: string } | { readonly code: string } {
  try {
    return { text: fs.readFileSync(p, 'utf8') };
  } catch (e) {
    return { code: (e as NodeJS.ErrnoException).code ?? String(e) };
  }
}

/**
 * What this machine says about `pid` now (see the header): `gone`, `running` (start time on this
 * machine's clock in ms, argv, comm, state, ppid: each null when unreadable), or `unknown` with
 * why. Never throws. The stat is read before and after the cmdline; a pid whose start changed in
 * between (it died and was reused meanwhile) is `unknown`.
 */
export function processFacts(pid: number): ProcessFacts {
  if (process.platform !== 'linux') return { kind: 'unknown', why: `this is ${process.platform}, not Linux: pids are not checked` };
  // 0 and negatives name process groups for kill(): never a heartbeat's process.
  if (!Number.isInteger(pid) || pid < 1 || pid > PID_MAX_LIMIT) return { kind: 'unknown', why: `${pid} is not a pid a process here could have` };
  if ('code' in readText('/proc/self/stat')) return { kind: 'unknown', why: '/proc is not readable here' };
  const first = exists(pid);
  if (first === 'no') return { kind: 'gone' };
  if (first !== 'yes') return { kind: 'unknown', why: first.why };

  const stat1 = readText(`/proc/${pid}/stat`);
  if ('code' in stat1) {
    if (exists(pid) === 'no') return { kind: 'gone' }; // it ended between the two looks
    return { kind: 'running', startMs: null, startWhy: `/proc/${pid}/stat: ${stat1.code}`, argv: null, comm: null, state: null, ppid: null };
  }
  const s1 = parseStat(stat1.text);
  if (!s1) return { kind: 'running', startMs: null, startWhy: `/proc/${pid}/stat does not parse`, argv: null, comm: null, state: null, ppid: null };
  const cmd = readText(`/proc/${pid}/cmdline`);
  const stat2 = readText(`/proc/${pid}/stat`);
  const s2 = 'text' in stat2 ? parseStat(stat2.text) : null;
  if (!s2 || s2.startTicks !== s1.startTicks) {
    if (exists(pid) === 'no') return { kind: 'gone' };
    return { kind: 'unknown', why: `pid ${pid} changed while it was being read` };
  }
  const argv = 'text' in cmd ? cmd.text.split('\0').filter((a, i, all) => a !== '' || i < all.length - 1) : null;

  const hz = clockTicksPerSecond();
  const boot = bootTimeMs();
  const startMs = hz.value !== null && boot !== null ? boot + (s1.startTicks * 1000) / hz.value : null;
  return {
    kind: 'running',
    startMs,
    ...(startMs === null ? { startWhy: hz.value === null ? (hz.why ?? 'CLK_TCK unknown') : '/proc/stat has no btime' } : {}),
    argv,
    comm: s1.comm,
    state: s1.state,
    ppid: s1.ppid,
  };
}

/**
 * The processes on this machine listening on TCP `port` (any address), from /proc/net/tcp{,6}
 * and each process's descriptors: pid and command line. Empty when none is found (or /proc
 * cannot say: another user's process may be hidden).
 */
export function portHolders(port: number): { readonly pid: number; readonly command: string }[] {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(table, 'latin1');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      const local = f[1] ?? '';
      // State 0A is LISTEN; the local address is hex ip:hex port.
      if (f[3] === '0A' && parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port && f[9]) inodes.add(f[9]);
    }
  }
  if (inodes.size === 0) return [];
  const out: { pid: number; command: string }[] = [];
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    const holds = fds.some((fd) => {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        return m !== null && inodes.has(m[1] as string);
      } catch {
        return false;
      }
    });
    if (!holds) continue;
    let command = '';
    try {
      command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    } catch {
      /* gone meanwhile */
    }
    out.push({ pid: Number(pid), command });
  }
  return out;
}
