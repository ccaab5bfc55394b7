import 'server-only';
/**
 * The only deletions in the demo: ferry removes exactly two paths, both its own, its claim when it
 * honours a kill or pause (C/interrupt.rs `abandon_claim`) and its heartbeat when a run ends
 * (C/lib.rs `remove_heartbeat`, the run's `Drop`). These do that for the demo's simulated workers;
 * claimboard's operator code never deletes anything.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fsyncDir } from '../fs/atomic-write';
import type { Identity } from './identity';
import { requireName } from './record-file';

function removeOwn(root: string, rel: string): boolean {
  const abs = path.join(root, ...rel.split('/'));
  try {
    fs.unlinkSync(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  fsyncDir(path.dirname(abs));
  return true;
}

/**
 * Deletes `tasks/<order>/claim.<agent>.json`, the agent's own claim, as a ferry worker does when
 * it honours a kill or pause (C/interrupt.rs `abandon_claim`). For the demo's simulated workers
 * only. Returns false when there was no such file (ferry ignores NotFound too).
 */
export function removeOwnClaim(root: string, agent: Identity, orderId: string): boolean {
  requireName('agent', agent.name);
  requireName('order id', orderId);
  return removeOwn(root, `tasks/${orderId}/claim.${agent.name}.json`);
}

/**
 * Deletes `tasks/<order>/heartbeat.<agent>.json`, the agent's own heartbeat, as ferry does when a
 * run ends (C/lib.rs `remove_heartbeat`); a run that dies leaves it behind. For the demo's
 * simulated workers only. Returns false when there was no such file.
 */
export function removeOwnHeartbeat(root: string, agent: Identity, orderId: string): boolean {
  requireName('agent', agent.name);
  requireName('order id', orderId);
  return removeOwn(root, `tasks/${orderId}/heartbeat.${agent.name}.json`);
}
