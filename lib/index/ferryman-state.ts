import 'server-only';
/**
 * What ferry on this machine trusts beyond the channel folder (C/lib.rs `read_agent_roster`):
 * the fleet roster in `<state>/fleet/agents/*.json` (added for names the channel's agents/ lacks)
 * and the keys pinned in a workspace's `.ferryman/agents-pinned/<name>.key` (override the folder's
 * keys). `claimboard state|serve --ferryman-state <dir>` reads the first, `--ferryman-pins <dir>`
 * the second, so claimboard on the hub trusts what ferry on the hub trusts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { canonicalName, isSafeComponent, isSyncConflictName, MAX_RECORD_BYTES } from '../ledger/names';
import { parseRecord, type AgentRecord } from '../ledger/records';

/** A fleet roster entry: `path` is `fleet/agents/<file>` (shown where the entry is used). */
export interface FleetAgent {
  readonly path: string;
  readonly record: AgentRecord;
}

/**
 * Reads `<stateDir>/fleet/agents/*.json` as ferry does: conflict copies and files that do not
 * parse are skipped (ferry skips them silently). A missing folder gives []. Never throws.
 */
export function readFleetRoster(stateDir: string): FleetAgent[] {
  const dir = path.join(stateDir, 'fleet', 'agents');
  let names: string[];
  try {
    names = fs.readdirSync(dir).sort();
  } catch {
    return [];
  }
  const out: FleetAgent[] = [];
  for (const name of names) {
    if (!name.endsWith('.json') || name.startsWith('.') || isSyncConflictName(name)) continue;
    try {
      const p = path.join(dir, name);
      const st = fs.lstatSync(p);
      if (!st.isFile() || st.size > MAX_RECORD_BYTES) continue;
      const parsed = parseRecord('agent', fs.readFileSync(p), name, null);
      const record = parsed.ok ? parsed.record : parsed.misplaced;
      if (record?.kind === 'agent') out.push({ path: `fleet/agents/${name}`, record });
    } catch {
      // unreadable: ferry skips it too
    }
  }
  return out;
}

/**
 * Reads pinned keys from a ferry `agents-pinned/` folder (`<name>.key`, hex): canonical name ->
 * lowercase key. Files that are not a 64-digit hex key are skipped. Never throws.
 */
export function readFerryPins(pinsDir: string): Map<string, string> {
  const pins = new Map<string, string>();
  let names: string[];
  try {
    names = fs.readdirSync(pinsDir).sort();
  } catch {
    return pins;
  }
  for (const name of names) {
    if (!name.endsWith('.key')) continue;
    const who = canonicalName(name.slice(0, -4));
    if (!isSafeComponent(who)) continue;
    try {
      const key = fs.readFileSync(path.join(pinsDir, name), 'utf8').trim().toLowerCase();
      if (/^[0-9a-f]{64}$/.test(key)) pins.set(who, key);
    } catch {
      // unreadable: skipped
    }
  }
  return pins;
}
