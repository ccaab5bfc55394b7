/**
 * Incremental latency: single-file writes to the served channel (a live run's heartbeat rewritten, a
 * claim of an open order, a signed release of a held one), each timed from the write to
 * /api/orders/:id showing it; and the journal of the files the step adds, removed afterwards.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ALIVE, OPS, benchSigner, writeAtomic, type Generated, type Plan } from './generate';
import { signFields } from '../lib/ledger/sign';
import { get, log, sleep } from './harness';

// Files the incremental step adds to the cached channel, removed at the end (and at the next
// start, should a run be interrupted). Heartbeat rewrites need no undo: they are live runs'
// heartbeats, which every run rewrites anyway.
let journal: string | null = null;
let channelRoot: string | null = null;
export function cleanupWrites(): void {
  if (!journal || !channelRoot || !fs.existsSync(journal)) return;
  const rels = fs.readFileSync(journal, 'utf8').split('\n').filter(Boolean);
  for (const rel of rels) fs.rmSync(path.join(channelRoot, rel), { force: true });
  fs.rmSync(journal, { force: true });
  if (rels.length) log(`removed the ${rels.length} files the incremental step added`);
}

/** Journals the files the incremental step adds to the channel at `root` beside it (`<root>.bench-added`). */
export function journalWrites(root: string): void {
  channelRoot = root;
  journal = `${root}.bench-added`;
}

export type WriteKind = 'heartbeat' | 'claim' | 'release';
interface Card {
  holder: string | null;
  state: string;
  heartbeat: { arrival_ms: number } | null;
}

/** A write not reflected within this long counts as this long (and as timed out). */
export const WRITE_TIMEOUT_MS = 30_000;
/** The incremental step stops starting new writes after this long. */
export const INCREMENTAL_BUDGET_MS = 600_000;

export async function incremental(port: number, g: Generated, plan: Plan, writes: number): Promise<{ byKind: Record<WriteKind, number[]>; all: number[]; timeouts: number; skipped: number; unstarted: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const sign = benchSigner(OPS);
  const liveByRel = new Map(plan.live.map((h) => [h.rel, h]));
  const hbTargets = plan.running.filter((_, i) => i % 2 === 0);
  const relTargets = plan.running.filter((_, i) => i % 2 === 1);
  const counts: Record<WriteKind, number> = { heartbeat: 0, claim: 0, release: 0 };
  const kinds: WriteKind[] = [];
  for (let j = 0; j < writes; j++) {
    const k = (['heartbeat', 'claim', 'release'] as const)[j % 3] as WriteKind;
    kinds.push(k);
    counts[k]++;
  }
  const spread = <T>(list: readonly T[], c: number, j: number): T | undefined => (list.length ? list[Math.floor(((j + 0.5) * list.length) / Math.max(1, c))] : undefined);
  const seen: Record<WriteKind, number> = { heartbeat: 0, claim: 0, release: 0 };
  const byKind: Record<WriteKind, number[]> = { heartbeat: [], claim: [], release: [] };
  const all: number[] = [];
  let timeouts = 0;
  let skipped = 0;
  let unstarted = 0;
  const phaseStart = performance.now();
  const cardOf = async (id: string): Promise<Card | null> => {
    try {
      const r = await get(port, `/api/orders/${id}`, agent, WRITE_TIMEOUT_MS);
      return r.status === 200 ? (JSON.parse(r.body) as { card: Card }).card : null;
    } catch {
      return null; // counted as not reflected yet
    }
  };
  try {
    for (const kind of kinds) {
      if (performance.now() - phaseStart > INCREMENTAL_BUDGET_MS) {
        unstarted++;
        continue;
      }
      const j = seen[kind]++;
      let id: string | undefined;
      let write: () => void;
      let reflected: (before: Card, now: Card) => boolean;
      if (kind === 'heartbeat') {
        const t = spread(hbTargets, counts.heartbeat, j);
        const h = t && liveByRel.get(`tasks/${t[0]}/heartbeat.${t[1]}.json`);
        if (!t || !h) { skipped++; continue; }
        id = t[0];
        write = () => writeAtomic(path.join(g.root, h.rel), JSON.stringify({ order_id: h.order_id, agent: h.agent, run: h.run, pid: h.pid, at: new Date().toISOString() }, null, 2));
        reflected = (b, c) => (c.heartbeat?.arrival_ms ?? 0) !== (b.heartbeat?.arrival_ms ?? 0);
      } else if (kind === 'claim') {
        const oid = spread(plan.open, counts.claim, j);
        if (!oid) { skipped++; continue; }
        id = oid;
        const who = ALIVE[j % ALIVE.length] as string;
        const rel = `tasks/${oid}/claim.${who}.json`;
        write = () => {
          fs.appendFileSync(journal as string, rel + '\n');
          writeAtomic(path.join(g.root, rel), JSON.stringify({ order_id: oid, agent: who, claimed_at: new Date().toISOString() }, null, 2));
        };
        reflected = (_b, c) => c.holder === who;
      } else {
        const t = spread(relTargets, counts.release, j);
        if (!t) { skipped++; continue; }
        const [oid, holder] = t;
        id = oid;
        const rel = `tasks/${oid}/release.${OPS}.${holder}.json`;
        write = () => {
          fs.appendFileSync(journal as string, rel + '\n');
          const rec = signFields('release', { order_id: oid, released: holder, releaser: OPS, reason: 'requeued: bench', at: new Date().toISOString() }, OPS, sign);
          writeAtomic(path.join(g.root, rel), JSON.stringify(rec, null, 2));
        };
        reflected = (_b, c) => c.holder !== holder;
      }
      const before = await cardOf(id);
      if (!before || reflected(before, before)) {
        skipped++;
        continue;
      }
      const t0 = performance.now();
      write();
      let ms: number | null = null;
      while (performance.now() - t0 < WRITE_TIMEOUT_MS) {
        const tr = performance.now();
        const c = await cardOf(id);
        if (c && reflected(before, c)) {
          ms = performance.now() - t0;
          break;
        }
        const wait = 10 - (performance.now() - tr);
        if (wait > 0) await sleep(wait);
      }
      if (ms === null) {
        timeouts++;
        ms = WRITE_TIMEOUT_MS;
      }
      byKind[kind].push(ms);
      all.push(ms);
      await sleep(50);
    }
  } finally {
    agent.destroy();
  }
  return { byKind, all, timeouts, skipped, unstarted };
}
