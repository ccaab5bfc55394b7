/**
 * serve's local options (issue 16): parsing (repeatable --local-agent / --ferryman-workspace, the
 * reaper off unless --reap-agent and --reap-key come together, hold by default, 60 s), the web
 * server's environment, and the refusals serve turns into exit 2.
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
    });
    expect(serveLocalOf(parse([]))).toEqual({ localAgents: [], ferrymanWorkspaces: [] });
  });

  it('the reaper: hold every 60 s by default; policy and period as given', () => {
    expect(serveLocalOf(parse(['--reap-agent', 'fang', '--reap-key', 'k'])).reap).toEqual({ agent: 'fang', key: 'k', policy: 'hold', everyS: 60 });
    expect(serveLocalOf(parse(['--reap-agent', 'fang', '--reap-key', 'k', '--reap-policy', 'reset', '--reap-every', '2.5'])).reap).toEqual({
      agent: 'fang',
      key: 'k',
      policy: 'reset',
      everyS: 2.5,
    });
  });

  it('refuses a policy other than reset|hold, a period of 0, an agent without a key, a policy without an agent', () => {
    expect(() => parse(['--reap-policy', 'kill'])).toThrow(/reset or hold/);
    expect(() => parse(['--reap-every', '0'])).toThrow(/above 0/);
    expect(() => serveLocalOf(parse(['--reap-agent', 'fang']))).toThrow('--reap-agent and --reap-key go together');
    expect(() => serveLocalOf(parse(['--reap-policy', 'reset']))).toThrow('--reap-policy and --reap-every need --reap-agent and --reap-key');
  });
});

describe('prepareLocal', () => {
  it("passes the local agents and the reaper's state folder to the web server", () => {
    const p = prepareLocal({ localAgents: ['fang', 'wisp'], ferrymanWorkspaces: [], reapState: path.join(tmp, 'state') }, ctx);
    expect(p.env).toEqual({ CLAIMBOARD_LOCAL_AGENTS: 'fang,wisp', CLAIMBOARD_REAPER_STATE: path.join(tmp, 'state') });
    expect(p.reap).toBeNull();
    expect(p.lines).toEqual(['local agents (their pids are checked here): fang (--local-agent), wisp (--local-agent)']);
  });

  it('refuses a bad name, a workspace without agent.toml, a reaped agent that is not local, an unreadable key', () => {
    expect(() => prepareLocal({ localAgents: ['../x'], ferrymanWorkspaces: [] }, ctx)).toThrow('--local-agent ../x: not a safe name');
    expect(() => prepareLocal({ localAgents: [], ferrymanWorkspaces: [path.join(tmp, 'nowhere')] }, ctx)).toThrow();
    const reap = { agent: 'fang', key: path.join(tmp, 'missing.key'), policy: 'hold' as const, everyS: 60 };
    expect(() => prepareLocal({ localAgents: ['wisp'], ferrymanWorkspaces: [], reap }, ctx)).toThrow('--reap-agent fang is not local here');
    expect(() => prepareLocal({ localAgents: ['fang'], ferrymanWorkspaces: [], reap }, ctx)).toThrow();
  });

  it('a reaper on a channel that cannot be read says so and keeps going until stopped', () => {
    const key = path.join(tmp, 'fang.key');
    fs.writeFileSync(key, '11'.repeat(32) + '\n', { mode: 0o600 });
    const p = prepareLocal({ localAgents: ['fang'], ferrymanWorkspaces: [], reapState: path.join(tmp, 'state'), reap: { agent: 'fang', key, policy: 'reset', everyS: 60 } }, ctx);
    expect(p.reap?.everyMs).toBe(60_000);
    expect([p.reap?.config.agent, p.reap?.config.policy, p.reap?.config.staleAfterMs]).toEqual(['fang', 'reset', 300_000]);
    const logged: string[] = [];
    const nudged: string[] = [];
    const stop = startReaper(p.reap!.config, 60_000, (r) => nudged.push(r), (l) => logged.push(l));
    stop();
    expect(logged.length).toBe(1);
    expect(logged[0]).toMatch(/^reap: /);
    expect(nudged).toEqual([]);
  });
});
