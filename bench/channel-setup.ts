/**
 * The pass setup a worker thread rebuilds its context from (lib/index/workers/worker-pool.ts
 * WorkerSetup), for the bench scripts that pass order folders without an indexer: the roster
 * files as the indexer reads them (agents/, retirements/, grants/, master.json), nothing else.
 * Clock now, stale_after 120 s. Throws what reading the folder throws.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isTrustPath, readEntry, type FileOutcome } from '../lib/ledger/channel';
import type { WorkerSetup } from '../lib/index/workers/worker-pool';
import { entryFromStat } from '../lib/index/disk/read-channel';

export function benchSetup(root: string, spillDir?: string): WorkerSetup {
  const trust: FileOutcome[] = [];
  const walk = (rel: string): void => {
    const st = fs.lstatSync(path.join(root, rel));
    if (st.isDirectory()) for (const c of fs.readdirSync(path.join(root, rel))) walk(`${rel}/${c}`);
    else if (isTrustPath(rel)) trust.push(readEntry(entryFromStat(root, rel, st)));
  };
  for (const top of fs.readdirSync(root)) if (isTrustPath(`${top}/`) || top === 'master.json') walk(top);
  return {
    root,
    agents: trust,
    fleetAgents: [],
    pins: [],
    operators: [],
    retired: [],
    ferryRetired: [],
    nowMs: Date.now(),
    staleAfterMs: 120_000,
    clockSteps: [],
    ...(spillDir ? { spillDir } : {}),
  };
}
