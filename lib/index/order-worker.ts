import 'server-only';
/** An index worker thread: passOrder over its share of folders (see worker-pool.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { buildRoster } from '../ledger/verify';
import type { AgentRecord } from '../ledger/records';
import { nodeVerify } from './node-verify';
import { passOrder, type OrderPassResult } from './order-pass';
import type { WorkerMessage, WorkerSetup } from './worker-pool';

const { setup, dirs } = workerData as { setup: WorkerSetup; dirs: string[] };
const post = (m: WorkerMessage) => parentPort?.postMessage(m);
try {
  const agents: { path: string; record: AgentRecord }[] = [];
  for (const o of setup.agents) if (o.status === 'record' && o.record.kind === 'agent') agents.push({ path: o.path, record: o.record });
  const { roster } = buildRoster(agents, { pins: new Map(setup.pins), operators: setup.operators });
  let verified = 0;
  const ctx = {
    root: setup.root,
    roster,
    derive: { nowMs: setup.nowMs, staleAfterMs: setup.staleAfterMs, retired: new Set(setup.retired), lastArrivalByAgent: new Map<string, number>() },
    verify: (k: string, m: string, s: string) => {
      verified++;
      return nodeVerify(k, m, s);
    },
  };
  let batch: OrderPassResult[] = [];
  let files = 0;
  let sentVerified = 0;
  for (const d of dirs) {
    const { view: _view, ...r } = passOrder(d, ctx);
    batch.push(r);
    files += r.files.length;
    if (batch.length >= 200) {
      post({ type: 'results', results: batch, files, verified: verified - sentVerified });
      sentVerified = verified;
      batch = [];
      files = 0;
    }
  }
  post({ type: 'results', results: batch, files, verified: verified - sentVerified });
  post({ type: 'done' });
} catch (e) {
  post({ type: 'error', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
}
