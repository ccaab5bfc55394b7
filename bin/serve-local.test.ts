/**
 * serve's local options: parsing (repeatable --local-agent / --ferryman-workspace, the
 * reaper off unless --reap or --reap-agent with --reap-key is given; several agents each with its
 * own policy; hold by default for --reap-agent, 60 s), the web server's environment, and the
 * refusals serve turns into exit 2.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { addServeLocalOptions, serveLocalOf, type ServeLocalFlags } from './serve-local-options';
import { prepareLocal, startReaper } from './serve-local';
import { openMemory } from '../lib/index/db';
import { Indexer } from '../lib/index/indexer';
import { order } from '../lib/index/read/queries';
import { nodeVerify } from '../lib/index/disk/node-verify';
import { publicKeyOf, type Identity } from '../lib/demo/identity';
import { writeAgent, writeClaim, writeHeartbeat, writeOrder } from '../lib/demo/write';
import { seedOf } from '../test/support/channel-builder';

function parse(args: string[]): ServeLocalFlags {
  const cmd = addServeLocalOptions(new Command('serve').exitOverride().configureOutput({ writeErr: () => undefined }));
  cmd.parse(args, { from: 'user' });
  return cmd.opts<ServeLocalFlags>();
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-serve-local-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const ctx = { channel: path.join(tmp, 'channel'), staleAfterMs: 300_000, operators: [], fleetAgents: [] };

describe('serve local options', () => {
  it('repeatable local agents and workspaces; no reaper unless asked', () => {
    expect(serveLocalOf(parse(['--local-agent', 'fang', '--local-agent', 'wisp', '--ferryman-workspace', '/srv/ws']))).toEqual({
      localAgents: ['fang', 'wisp'],
      ferrymanWorkspaces: ['/srv/ws'],
      reaps: [],
    });
    expect(serveLocalOf(parse([]))).toEqual({ localAgents: [], ferrymanWorkspaces: [], reaps: [] });
  });

  it('the reaper: hold every 60 s by default; policy and period as given', () => {
    expect(serveLocalOf(parse(['--reap-agent', 'fang', '--reap-key', 'k'])).reaps).toEqual([{ agent: 'fang', key: 'k', policy: 'hold', everyS: 60 }]);
    expect(serveLocalOf(parse(['--reap-agent', 'fang', '--reap-key', 'k', '--reap-policy', 'reset', '--reap-every', '2.5'])).reaps).toEqual([
      { agent: 'fang', key: 'k', policy: 'reset', everyS: 2.5 },
    ]);
  });

  it('several reaped agents, each with its own policy and key (a key path may hold colons), beside --reap-agent', () => {
    const f = parse(['--reap', 'fang:reset:/k/fang.key', '--reap', 'wisp:hold:C:/keys/wisp.key', '--reap-agent', 'nebra', '--reap-key', 'n.key', '--reap-every', '5']);
    expect(serveLocalOf(f).reaps).toEqual([
      { agent: 'fang', key: '/k/fang.key', policy: 'reset', everyS: 5 },
      { agent: 'wisp', key: 'C:/keys/wisp.key', policy: 'hold', everyS: 5 },
      { agent: 'nebra', key: 'n.key', policy: 'hold', everyS: 5 },
    ]);
  });

  it('refuses a policy other than reset|hold, a period of 0, an agent without a key, a policy without an agent', () => {
    expect(() => parse(['--reap-policy', 'kill'])).toThrow(/reset or hold/);
    expect(() => parse(['--reap-every', '0'])).toThrow(/above 0/);
    expect(() => serveLocalOf(parse(['--reap-agent', 'fang']))).toThrow('--reap-agent and --reap-key go together');
    expect(() => serveLocalOf(parse(['--reap-policy', 'reset']))).toThrow('--reap-policy needs --reap-agent and --reap-key');
    expect(() => serveLocalOf(parse(['--reap-every', '5']))).toThrow('--reap-every needs --reap, or --reap-agent and --reap-key');
    expect(() => serveLocalOf(parse(['--reap', 'fang:reset']))).toThrow('--reap fang:reset: expected <agent>:<policy>:<key-file>');
    expect(() => serveLocalOf(parse(['--reap', 'fang:kill:k']))).toThrow('the policy is reset or hold, not kill');
    expect(() => serveLocalOf(parse(['--reap', 'fang:reset:k', '--reap', 'Fang:hold:k']))).toThrow('Fang is reaped twice: one policy per agent');
  });
});

describe('prepareLocal', () => {
  it("passes the local agents and the reaper's state folder to the web server", () => {
    const p = prepareLocal({ localAgents: ['fang', 'wisp'], ferrymanWorkspaces: [], reapState: path.join(tmp, 'state'), reaps: [] }, ctx);
    expect(p.env).toEqual({ CLAIMBOARD_LOCAL_AGENTS: 'fang,wisp', CLAIMBOARD_REAPER_STATE: path.join(tmp, 'state') });
    expect([p.reaps, p.stateDir]).toEqual([[], path.join(tmp, 'state')]);
    expect(p.lines).toEqual(['local agents (their pids are checked here): fang (--local-agent), wisp (--local-agent)']);
  });

  it('refuses a bad name, a workspace without agent.toml, a reaped agent that is not local, an unreadable key', () => {
    expect(() => prepareLocal({ localAgents: ['../x'], ferrymanWorkspaces: [], reaps: [] }, ctx)).toThrow('--local-agent ../x: not a safe name');
    expect(() => prepareLocal({ localAgents: [], ferrymanWorkspaces: [path.join(tmp, 'nowhere')], reaps: [] }, ctx)).toThrow();
    const reap = { agent: 'fang', key: path.join(tmp, 'missing.key'), policy: 'hold' as const, everyS: 60 };
    expect(() => prepareLocal({ localAgents: ['wisp'], ferrymanWorkspaces: [], reaps: [reap] }, ctx)).toThrow('reaped agent fang is not local here');
    expect(() => prepareLocal({ localAgents: ['fang'], ferrymanWorkspaces: [], reaps: [reap] }, ctx)).toThrow();
  });

  it('a reaper on a channel that cannot be read says so and keeps going until stopped', () => {
    const key = path.join(tmp, 'fang.key');
    fs.writeFileSync(key, '11'.repeat(32) + '\n', { mode: 0o600 });
    const p = prepareLocal({ localAgents: ['fang'], ferrymanWorkspaces: [], reapState: path.join(tmp, 'state'), reaps: [{ agent: 'fang', key, policy: 'reset', everyS: 60 }] }, ctx);
    const r = p.reaps[0];
    if (!r) throw new Error('no reaper');
    expect([p.reaps.length, r.everyMs, r.config.agent, r.config.policy, r.config.staleAfterMs]).toEqual([1, 60_000, 'fang', 'reset', 300_000]);
    const logged: string[] = [];
    const nudged: string[] = [];
    const stop = startReaper(r.config, 60_000, (rel) => nudged.push(rel), (l) => logged.push(l));
    stop();
    expect(logged.length).toBe(1);
    expect(logged[0]).toMatch(/^reap: /);
    expect(nudged).toEqual([]);
  });
});

describe('startReaper inside serve, end to end', () => {
  it("a killed child's stale run: the timer's pass writes the reset once it is stale, nudged, and the index reads the order Open", async () => {
    const who = (name: string): Identity => ({ name, seedHex: seedOf(name) });
    const [ops, fang] = [who('ops'), who('fang')];
    const root = fs.mkdtempSync(path.join(tmp, 'e2e-ch-'));
    writeAgent(root, { name: 'ops', role: 'operator', publicKey: publicKeyOf(ops) });
    writeAgent(root, { name: 'fang', role: 'worker', publicKey: publicKeyOf(fang) });
    writeOrder(root, ops, { id: 'o-dead', project_id: 'p', payload: { task: 'o-dead' } });
    writeClaim(root, fang, 'o-dead');
    // The run's process: started, named by the heartbeat, then killed and collected (its pid gone here).
    const child = spawn('sleep', ['600'], { stdio: 'ignore' });
    await new Promise<void>((r) => child.once('spawn', () => r()));
    writeHeartbeat(root, fang, 'o-dead', { run: 'run1', pid: child.pid ?? 0 });
    const beatAt = fs.statSync(path.join(root, 'tasks/o-dead/heartbeat.fang.json')).ctimeMs;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGKILL');
    await exited;

    const STALE_MS = 1000;
    const EVERY_MS = 500;
    const key = path.join(tmp, 'e2e-fang.key');
    fs.writeFileSync(key, `${fang.seedHex}\n`, { mode: 0o600 });
    const p = prepareLocal({ localAgents: ['fang'], ferrymanWorkspaces: [], reapState: path.join(tmp, 'e2e-state'), reaps: [{ agent: 'fang', key, policy: 'reset', everyS: EVERY_MS / 1000 }] }, { ...ctx, channel: root, staleAfterMs: STALE_MS });
    const r = p.reaps[0];
    if (!r) throw new Error('no reaper');
    const db = openMemory();
    const ix = new Indexer({ root, db, staleAfterMs: STALE_MS, watch: false, rescanMs: 60_000, verify: nodeVerify, reaperState: p.stateDir });
    await ix.start();
    const logged: string[] = [];
    const nudged: string[] = [];
    const stop = startReaper(r.config, r.everyMs, (rel) => {
      nudged.push(rel);
      ix.request(rel);
    }, (l) => logged.push(l));
    try {
      const release = path.join(root, 'tasks/o-dead/release.fang.json');
      // A bound far beyond any run: how soon after going stale is a figure, not a test.
      const deadline = Date.now() + 60_000;
      while (!fs.existsSync(release) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
      expect(fs.existsSync(release)).toBe(true);
      // Never before the run was stale: heartbeat arrival + stale_after, on this machine's clock
      // (the release's ctime is read off the kernel's coarse clock: up to a tick, 10 ms at most, behind it).
      expect(fs.statSync(release).ctimeMs - beatAt).toBeGreaterThanOrEqual(STALE_MS - 10);
      expect(nudged).toEqual(['tasks/o-dead/release.fang.json', 'ledger.fang.jsonl']);
      expect(logged.filter((l) => l.includes('released'))).toHaveLength(1);
      expect(logged[0]).toMatch(new RegExp(`^reap: o-dead  released: heartbeat arrived here [\\d.]+ s ago \\(stale after 1 s\\); dead: pid ${child.pid} is gone on this machine -> tasks/o-dead/release.fang.json, ledger.fang.jsonl$`));
      // The nudge, not the minute-long quick look (rescanMs 60 s), brings the index to Open.
      const until = Date.now() + 60_000;
      while (order(db, 'o-dead', Date.now())?.card.state !== 'open' && Date.now() < until) await new Promise((res) => setTimeout(res, 50));
      const c = order(db, 'o-dead', Date.now())?.card;
      expect([c?.state, c?.holder]).toEqual(['open', null]);
    } finally {
      stop();
      await ix.stop();
    }
  });
});
