/**
 * `claimboard reap` through the real launcher (bin/claimboard.mjs), on a channel whose worker child
 * was started and killed: the dry run's and the reset's lines and exit codes, usage errors, and
 * `--every` stopped by SIGTERM.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyOf, writeKeyFile, type Identity } from '../lib/demo/identity';
import { writeAgent, writeClaim, writeHeartbeat, writeOrder } from '../lib/demo/write';
import { seedOf } from '../test/support/channel-builder';
import { folderSnapshot } from '../test/support/folder';

const ROOT = path.resolve(__dirname, '..');
const LAUNCHER = path.join(ROOT, 'bin/claimboard.mjs');
const run = (args: string[]) => spawnSync(process.execPath, [LAUNCHER, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-reap-cli-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const ops: Identity = { name: 'ops', seedHex: seedOf('ops') };
const fang: Identity = { name: 'fang', seedHex: seedOf('fang') };
const key = path.join(tmp, 'keys', 'fang.key');
let n = 0;
let deadPid = 0;

/** A channel where fang holds `o-1` and its heartbeat names `pid`. */
function channel(pid: number): string {
  const root = path.join(tmp, `ch-${++n}`);
  fs.mkdirSync(root);
  writeAgent(root, { name: 'ops', role: 'operator', publicKey: publicKeyOf(ops) });
  writeAgent(root, { name: 'fang', role: 'worker', publicKey: publicKeyOf(fang) });
  writeOrder(root, ops, { id: 'o-1', project_id: 'reap', payload: { task: 'x' } });
  writeClaim(root, fang, 'o-1');
  writeHeartbeat(root, fang, 'o-1', { run: 'run1', pid });
  return root;
}

beforeAll(async () => {
  writeKeyFile(key, fang.seedHex);
  const c = spawn(process.execPath, ['-e', 'setInterval(()=>{},1000)'], { stdio: 'ignore' });
  await new Promise<void>((r) => c.once('spawn', () => r()));
  const exited = new Promise<void>((r) => c.once('exit', () => r()));
  c.kill('SIGKILL');
  await exited;
  deadPid = c.pid ?? 0;
});

describe('claimboard reap', () => {
  it('--dry-run prints what it would do and writes nothing; then --policy reset releases, exit 0', async () => {
    const root = channel(deadPid);
    const state = path.join(tmp, 'state-1');
    await new Promise((r) => setTimeout(r, 600));
    const before = folderSnapshot(root);
    const dry = run(['reap', root, '--agent', 'fang', '--key', key, '--policy', 'reset', '--stale-after', '0.5', '--dry-run', '--state', state]);
    expect(dry.status).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`^o-1  would release: heartbeat arrived here [\\d.]+ s ago \\(stale after 0\\.5 s\\); dead: pid ${deadPid} is gone on this machine\\n$`));
    expect(dry.stderr).toContain('policy reset (dry run: nothing is written), stale after 0.5 s on this machine\'s clock');
    expect(folderSnapshot(root)).toEqual(before);
    expect(fs.existsSync(state)).toBe(false);

    const reset = run(['reap', root, '--agent', 'fang', '--key', key, '--policy', 'reset', '--stale-after', '0.5', '--state', state]);
    expect(reset.status).toBe(0);
    expect(reset.stdout).toMatch(/^o-1 {2}released: .* -> tasks\/o-1\/release\.fang\.json, ledger\.fang\.jsonl\n$/);
    expect(reset.stderr).toMatch(/: 1 released\n$/);
    const st = run(['state', root, '--json', '--stale-after', '0.5']);
    const got = JSON.parse(st.stdout) as { orders: { order_id: string; state: string; holder: string | null }[]; problems: unknown[] };
    expect([got.orders.map((o) => [o.order_id, o.state, o.holder]), got.problems]).toEqual([[['o-1', 'open', null]], []]);
  });

  it('the default policy is hold: nothing in the channel', async () => {
    const root = channel(deadPid);
    await new Promise((r) => setTimeout(r, 600));
    const before = folderSnapshot(root);
    const held = run(['reap', root, '--agent', 'fang', '--key', key, '--stale-after', '0.5', '--state', path.join(tmp, 'state-2')]);
    expect(held.status).toBe(0);
    expect(held.stdout).toContain('o-1  held: ');
    expect(held.stdout).toContain('dead run held for review');
    expect(folderSnapshot(root)).toEqual(before);
  });

  it('usage errors exit 2; a key that is not the agent\'s exits 1 with the reason', () => {
    const root = channel(deadPid);
    expect(run(['reap', root, '--agent', 'fang', '--key', key, '--policy', 'delete']).status).toBe(2);
    expect(run(['reap', root, '--key', key]).status).toBe(2);
    const ws = path.join(tmp, 'ws-wisp');
    fs.mkdirSync(path.join(ws, '.ferryman'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.ferryman', 'agent.toml'), 'agent = "wisp"\ncommand = "claude"\n');
    const other = run(['reap', root, '--agent', 'fang', '--key', key, '--ferryman-workspace', ws]);
    expect([other.status, other.stderr.trim()]).toEqual([2, `claimboard: ${path.join(ws, '.ferryman', 'agent.toml')} is wisp's, not fang's`]);
    const wrong = path.join(tmp, 'keys', 'ops.key');
    if (!fs.existsSync(wrong)) writeKeyFile(wrong, ops.seedHex);
    const r = run(['reap', root, '--agent', 'fang', '--key', wrong, '--state', path.join(tmp, 'state-3')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("the key file is not fang's key in the roster: its release would not verify");
  });

  it('--every repeats until SIGTERM, then exits 0', async () => {
    const root = channel(deadPid);
    const p = spawn(process.execPath, [LAUNCHER, 'reap', root, '--agent', 'fang', '--key', key, '--every', '0.2', '--dry-run', '--stale-after', '300'], { cwd: ROOT });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // Three passes at least (the first comes after the CLI starts), then the signal.
    for (let i = 0; i < 300 && (out.match(/^o-1 /gm) ?? []).length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    p.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => p.once('exit', (c) => r(c)));
    expect(code).toBe(0);
    expect((out.match(/^o-1 {2}left: heartbeat fresh/gm) ?? []).length).toBeGreaterThanOrEqual(3);
    expect(err).toMatch(/claimboard: stopped\n$/);
  });
});
