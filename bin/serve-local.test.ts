/**
 * serve's local options (issue 16): parsing (repeatable --local-agent / --ferryman-workspace, the
 * reaper off unless --reap or --reap-agent with --reap-key is given; several agents each with its
 * own policy; hold by default for --reap-agent, 60 s), the web server's environment, and the
 * refusals serve turns into exit 2.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { addServeLocalOptions, serveLocalOf, type ServeLocalFlags } from './serve-local-options';
import { prepareLocal, startReaper } from './serve-local';

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
