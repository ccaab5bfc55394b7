/**
 * lib/local/proc.ts against real processes of this machine: this test's own, a child it starts
 * and kills, and a zombie (a child whose parent never collects it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { judgeLiveness } from '../ledger/liveness';
import { bootTimeMs, clockTicksPerSecond, parseStat, processFacts } from './proc';

const linux = process.platform === 'linux';
if (!linux) console.warn(`proc.test: this is ${process.platform}, not Linux: the /proc tests are skipped`);
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Starts `node -e "setInterval(()=>{},1000)"` and resolves once it runs. */
async function idleChild(): Promise<ChildProcess> {
  const c = spawn(process.execPath, ['-e', 'setInterval(()=>{},1000)'], { stdio: 'ignore' });
  children.push(c);
  await new Promise<void>((resolve, reject) => {
    c.once('spawn', () => resolve());
    c.once('error', reject);
  });
  return c;
}
const exited = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

describe.runIf(linux)('processFacts on Linux', () => {
  it('this process: running, started when Node says it did (btime is whole seconds: at most ~1 s early)', () => {
    const f = processFacts(process.pid);
    if (f.kind !== 'running' || f.startMs === null) throw new Error(`expected a start time, got ${JSON.stringify(f)}`);
    const nodeSays = Date.now() - process.uptime() * 1000; // Node's own start, a little after exec
    expect(f.startMs - nodeSays).toBeGreaterThan(-1_500);
    expect(f.startMs - nodeSays).toBeLessThan(500);
    expect(f.ppid).toBe(process.ppid);
  });

  it('a child: its argv, comm and parent; once killed and collected, gone', async () => {
    const before = Date.now();
    const c = await idleChild();
    const pid = c.pid ?? -1;
    const f = processFacts(pid);
    if (f.kind !== 'running') throw new Error(JSON.stringify(f));
    expect(f.argv).toEqual([process.execPath, '-e', 'setInterval(()=>{},1000)']);
    expect(f.comm).toBe('node');
    expect(f.ppid).toBe(process.pid);
    expect(f.startMs).not.toBeNull();
    expect(f.startMs ?? 0).toBeGreaterThan(before - 1_100); // btime truncation, one tick
    expect(f.startMs ?? 0).toBeLessThan(Date.now() + 20);
    c.kill('SIGKILL');
    await exited(c);
    expect(processFacts(pid)).toEqual({ kind: 'gone' });
  });

  it('a zombie (its parent never waits): running with state Z and no argv; the verdict is unknown, not alive nor dead', async () => {
    // sh starts a child that waits for a line on fd 3, prints its pid and becomes `sleep 30`,
    // which never collects it. The line is sent once sh is `sleep`: a child that ended before
    // (sh still sh) could be collected by sh itself, and no zombie would be left to look at.
    const c = spawn('sh', ['-c', '(read go <&3; exec sleep 0) & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore', 'pipe'] });
    children.push(c);
    const zpid = Number(await new Promise<string>((r) => c.stdout?.once('data', (d: Buffer) => r(d.toString().trim()))));
    const until = async (what: string, ok: () => boolean) => {
      // Polled until true; the bound only ends a test that hangs.
      for (let i = 0; !ok(); i++) {
        if (i > 3000) throw new Error(`${what}: not within 60 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await until('sh became sleep', () => {
      const p = processFacts(c.pid ?? -1);
      return p.kind === 'running' && p.comm === 'sleep';
    });
    (c.stdio[3] as Writable).write('go\n');
    let f = processFacts(zpid);
    await until('the child ended', () => (f = processFacts(zpid)).kind !== 'running' || f.state === 'Z');
    if (f.kind !== 'running') throw new Error(JSON.stringify(f));
    expect([f.state, f.argv, f.comm]).toEqual(['Z', [], 'sleep']);
    expect(judgeLiveness({ pid: zpid, run: 'r', firstArrivalMs: Date.now() }, f, null).verdict).toBe('unknown');
    c.kill('SIGKILL');
  });

  it('numbers that are not a pid here are unknown, never gone (0 and negatives name process groups for kill)', () => {
    for (const pid of [0, -1, 1.5, 4_194_305]) expect(processFacts(pid).kind).toBe('unknown');
  });

  it('CLK_TCK is 100 (USER_HZ, fixed on x86-64 and arm64) and btime is the boot time /proc/uptime implies, to the second', () => {
    if (process.arch === 'x64' || process.arch === 'arm64') expect(clockTicksPerSecond()).toEqual({ value: 100 });
    const uptimeS = Number(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    const boot = bootTimeMs();
    if (boot === null) throw new Error('no btime');
    // btime is truncated to the second and uptime printed to 10 ms.
    const lag = Date.now() - uptimeS * 1000 - boot;
    expect(lag).toBeGreaterThan(-50);
    expect(lag).toBeLessThan(1_050);
  });
});

describe('parseStat', () => {
  it('reads state, ppid and field 22 after the last parenthesis (a comm may hold spaces and parentheses)', () => {
    const rest = ['S', '42', ...Array.from({ length: 17 }, (_, i) => String(i + 5)), '987654', '0'];
    expect(rest[19]).toBe('987654'); // field 22 is the 20th after the comm
    expect(parseStat(`123 (a) (b c) ${rest.join(' ')}`)).toEqual({ comm: 'a) (b c', state: 'S', ppid: 42, startTicks: 987654 });
    expect(parseStat('123 no parens')).toBeNull();
    expect(parseStat('123 (x) S 1')).toBeNull();
  });
});

describe('processFacts off Linux', () => {
  it('is unknown (never gone) when the platform is not Linux', () => {
    const real = Object.getOwnPropertyDescriptor(process, 'platform');
    Object.defineProperty(process, 'platform', { value: 'darwin' });
    try {
      expect(processFacts(process.pid)).toEqual({ kind: 'unknown', why: 'this is darwin, not Linux: pids are not checked' });
    } finally {
      if (real) Object.defineProperty(process, 'platform', real);
    }
  });
});
