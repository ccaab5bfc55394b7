import 'server-only';
/**
 * What ferry keeps on this machine about its own agents (never synced), as the liveness check and
 * the reaper read it:
 * - a workspace's `agent.toml` (`<workspace>/.ferryman/agent.toml`, O/agent.rs `AgentConfig`):
 *   the agent's name and the engine ferry starts for it (`command`, or podman/docker when
 *   `sandbox` names an image), which is the process a heartbeat's pid names;
 * - the machine's keys (`$FERRYMAN_STATE_DIR/keys/<name>.key`): the identities this machine is;
 * - a worker's lock (`<workspace>/.ferryman/worker-<agent>.lock`, O/agent.rs `WorkerLock`): the
 *   pid of a ferry worker for that agent running here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { canonicalName, isSafeComponent } from '../ledger/names';
import type { EngineSpec } from '../ledger/liveness';

/** An agent.toml as far as this reads it. */
export interface AgentToml {
  /** The agent's name, canonical (trim + ASCII lowercase, as ferry compares names). */
  readonly agent: string;
  /** The engine ferry starts (its argv[0]). */
  readonly engine: EngineSpec;
  /** The `.ferryman` folder the file is in (where ferry's worker lock lives). */
  readonly attachment: string;
}

const Fields = z.object({
  agent: z.string().min(1).refine(isSafeComponent, 'agent is not a safe name (ASCII letters, digits, ".", "-", "_")'),
  command: z.string().min(1, 'command is empty'),
  sandbox: z.string().optional(),
});

/**
 * Parses agent.toml text the way ferry does (O/agent.rs `AgentConfig::parse`): `key = value` lines,
 * `#` comments, the value trimmed of spaces and of `"` at both ends. `from` names the file in the
 * engine's sentences and `attachment` is its folder. Throws Error saying which key is wrong.
 */
export function parseAgentToml(text: string, from: string, attachment: string): AgentToml {
  const fields: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) throw new Error(`${from}: line is not key = value: ${line}`);
    fields[line.slice(0, eq).trim()] = line.slice(eq + 1).trim().replace(/^"+|"+$/g, '');
  }
  const r = Fields.safeParse(fields);
  if (!r.success) throw new Error(`${from}: ${r.error.issues.map((i) => `${i.path.join('.') || 'file'}: ${i.message}`).join('; ')}`);
  // O/agent.rs `Runner::parse`: "" or "none" bare; "podman:IMG", "docker:IMG"; a bare IMG is podman.
  const sandbox = (r.data.sandbox ?? '').trim();
  const runtime = sandbox === '' || sandbox.toLowerCase() === 'none' ? null : sandbox.startsWith('docker:') ? 'docker' : 'podman';
  const command = r.data.command;
  const names = runtime ? [runtime] : [command.slice(command.lastIndexOf('/') + 1)];
  return { agent: canonicalName(r.data.agent), engine: { names, from }, attachment };
}

/**
 * Reads the agent.toml of a ferry workspace: `<dir>/.ferryman/agent.toml`, else `<dir>/agent.toml`
 * (`dir` is then the `.ferryman` folder, or a fleet folder with one agent.toml beside its
 * channels), else `dir` itself when it is the file. Throws Error when none is there or it is invalid.
 */
export function readAgentToml(dir: string): AgentToml {
  const abs = path.resolve(dir);
  const candidates = [path.join(abs, '.ferryman', 'agent.toml'), path.join(abs, 'agent.toml'), abs];
  for (const file of candidates) {
    let text: string;
    try {
      if (!fs.statSync(file).isFile()) continue;
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    return parseAgentToml(text, file, path.dirname(file));
  }
  throw new Error(`no agent.toml in ${abs} (looked for .ferryman/agent.toml and agent.toml)`);
}

/** The names of the keys in a ferry state directory (`<stateDir>/keys/<name>.key`): identities this machine is. Canonical, sorted; [] when none. Never throws. */
export function machineIdentities(stateDir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(path.join(stateDir, 'keys'));
  } catch {
    return [];
  }
  return [...new Set(names.filter((n) => n.endsWith('.key') && !n.startsWith('.')).map((n) => canonicalName(n.slice(0, -4))).filter(isSafeComponent))].sort();
}

/** The pid a ferry worker lock for `agent` names (`<attachment>/worker-<agent>.lock`), or null when there is none or it is not a number. Never throws. */
export function workerLockPid(attachment: string, agent: string): number | null {
  try {
    const text = fs.readFileSync(path.join(attachment, `worker-${canonicalName(agent)}.lock`), 'utf8').trim();
    return /^\d+$/.test(text) ? Number(text) : null;
  } catch {
    return null;
  }
}
