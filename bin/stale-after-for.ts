import fs from 'node:fs';
import { demoManifestPath } from '../lib/demo/manifest-path';
import { DEFAULT_STALE_AFTER_MS, DEMO_STALE_AFTER_MS } from '../lib/ledger/stale-after';

/**
 * The stale_after every command uses on `channel`, in ms: `--stale-after` when given; else the
 * demo's on the demo channel (its manifest beside the folder), else the default. serve, state
 * and the acts read it here, so the three agree on one folder.
 */
export function staleAfterMsFor(channel: string, explicitS: number | undefined): number {
  if (explicitS !== undefined) return explicitS * 1000;
  return fs.existsSync(demoManifestPath(channel)) ? DEMO_STALE_AFTER_MS : DEFAULT_STALE_AFTER_MS;
}
