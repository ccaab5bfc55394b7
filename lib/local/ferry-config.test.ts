import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { machineIdentities, parseAgentToml, readAgentToml, workerLockPid } from './ferry-config';
import { localAgentsOf } from './liveness';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-ferry-config-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The lines of the agent.toml `ferry enable --agent fang --command fake-engine` writes (its comments cut). */
const ENABLED = `# Written by 'ferry enable'. Safe to edit; re-running enable will not
# overwrite it.
agent = "fang"
role = "worker"
command = "fake-engine"
args = ["-p","{prompt}"]
sandbox = ""
# mounts = ""
timeout_secs = "900"
review = "confirm"
`;

describe('agent.toml as ferry reads it', () => {
  it('the agent and the engine ferry starts (the bare runner runs `command`)', () => {
    expect(parseAgentToml(ENABLED, '/ws/.ferryman/agent.toml', '/ws/.ferryman')).toEqual({
      agent: 'fang',
      engine: { names: ['fake-engine'], from: '/ws/.ferryman/agent.toml' },
      attachment: '/ws/.ferryman',
    });
  });

  it('a command path counts by its file name; a sandbox runs podman or docker (a bare image is podman), "none" is bare', () => {
    const withCmd = (cmd: string, sandbox: string) => parseAgentToml(`agent = "Fang"\ncommand = "${cmd}"\nsandbox = "${sandbox}"\n`, 'f', 'a');
    expect(withCmd('/usr/local/bin/claude', '').engine.names).toEqual(['claude']);
    expect(withCmd('claude', 'none').engine.names).toEqual(['claude']);
    expect(withCmd('claude', 'podman:img').engine.names).toEqual(['podman']);
    expect(withCmd('claude', 'docker:img').engine.names).toEqual(['docker']);
    expect(withCmd('claude', 'ghcr.io/x/agent:1').engine.names).toEqual(['podman']);
    expect(withCmd('claude', '').agent).toBe('fang'); // compared canonically
  });

  it('refuses what ferry refuses: a line without =, no agent, no command', () => {
    expect(() => parseAgentToml('agent = "fang"\njust words\n', 'f', 'a')).toThrow('f: line is not key = value: just words');
    expect(() => parseAgentToml('command = "x"\n', 'f', 'a')).toThrow(/agent/);
    expect(() => parseAgentToml('agent = "fang"\n', 'f', 'a')).toThrow(/command/);
    expect(() => parseAgentToml('agent = "../x"\ncommand = "c"\n', 'f', 'a')).toThrow(/safe name/);
  });

  it('found in a workspace (.ferryman/agent.toml), a .ferryman folder or as the file itself; said when missing', () => {
    const ws = path.join(tmp, 'ws');
    fs.mkdirSync(path.join(ws, '.ferryman'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.ferryman', 'agent.toml'), ENABLED);
    const file = path.join(ws, '.ferryman', 'agent.toml');
    for (const p of [ws, path.join(ws, '.ferryman'), file]) expect(readAgentToml(p)).toEqual({ agent: 'fang', engine: { names: ['fake-engine'], from: file }, attachment: path.join(ws, '.ferryman') });
    expect(() => readAgentToml(path.join(tmp, 'nothing'))).toThrow(/no agent.toml/);
  });
});

describe("ferry's other local files", () => {
  it('the identities of a state directory are its keys/<name>.key', () => {
    const st = path.join(tmp, 'state');
    fs.mkdirSync(path.join(st, 'keys'), { recursive: true });
    for (const n of ['fang.key', 'Ops.key', '.hidden.key', 'notes.txt']) fs.writeFileSync(path.join(st, 'keys', n), 'x');
    expect(machineIdentities(st)).toEqual(['fang', 'ops']);
    expect(machineIdentities(path.join(tmp, 'none'))).toEqual([]);
  });

  it("a worker lock's pid, or null", () => {
    const att = path.join(tmp, 'att');
    fs.mkdirSync(att);
    fs.writeFileSync(path.join(att, 'worker-fang.lock'), '4321\n');
    fs.writeFileSync(path.join(att, 'worker-wisp.lock'), 'garbage');
    expect([workerLockPid(att, 'Fang'), workerLockPid(att, 'wisp'), workerLockPid(att, 'nebra')]).toEqual([4321, null, null]);
  });

  it('local agents from --local-agent, a workspace and a state directory, each said where it came from', () => {
    const local = localAgentsOf({ localAgents: ['Wisp'], workspaces: [path.join(tmp, 'ws')], ferrymanState: path.join(tmp, 'state') });
    expect([...local.engines.keys()].sort()).toEqual(['fang', 'ops', 'wisp']);
    expect(local.engines.get('fang')).toEqual({ names: ['fake-engine'], from: path.join(tmp, 'ws', '.ferryman', 'agent.toml') });
    expect(local.engines.get('wisp')).toBeNull();
    expect(Object.fromEntries(local.sources)).toEqual({ fang: path.join(tmp, 'ws', '.ferryman', 'agent.toml'), wisp: '--local-agent', ops: `${path.join(tmp, 'state')}/keys` });
    expect(() => localAgentsOf({ localAgents: ['a/b'] })).toThrow('--local-agent a/b: not a safe name');
  });
});
