/**
 * A realistic synthetic channel for benchmarks (issue "scale and speed"): N orders, about six
 * files each, signed with node:crypto (fast; identical signatures to tweetnacl).
 * Deterministic for a given N (seeded PRNG); arrivals are the real ctimes of the write.
 */
import { createPrivateKey, sign as cryptoSign, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { naclPublicKey } from '../lib/ledger/nacl-verify';
import { revisionComponent } from '../lib/ledger/names';
import { signFields, signLedgerLine, type SignedKind } from '../lib/ledger/sign';
import { sha256HexOfText } from '../lib/ledger/json';

const PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex');
const WORKERS = Array.from({ length: 40 }, (_, i) => `worker-${String(i).padStart(2, '0')}`);
const OPS = 'ops';

function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Generated {
  readonly root: string;
  readonly orders: number;
  readonly files: number;
  readonly signed: number;
}

/** Writes (once; cached by N under `cacheDir`) a channel of `n` orders. Returns its root and counts. */
export function generateChannel(n: number, cacheDir: string): Generated {
  const root = path.join(cacheDir, `channel-${n}`);
  const meta = path.join(cacheDir, `channel-${n}.json`);
  if (fs.existsSync(meta)) return JSON.parse(fs.readFileSync(meta, 'utf8')) as Generated;
  fs.rmSync(root, { recursive: true, force: true });
  const rnd = mulberry32(n);
  const seeds = new Map<string, string>();
  const keys = new Map<string, KeyObject>();
  for (const name of [OPS, ...WORKERS]) {
    const seed = sha256HexOfText(`bench-seed:${name}`);
    seeds.set(name, seed);
    keys.set(name, createPrivateKey({ key: Buffer.concat([PKCS8, Buffer.from(seed, 'hex')]), format: 'der', type: 'pkcs8' }));
  }
  const signer = (name: string) => (payload: string) => cryptoSign(null, Buffer.from(payload), keys.get(name) as KeyObject).toString('hex');
  let files = 0;
  let signed = 0;
  const put = (rel: string, value: unknown) => {
    const abs = path.join(root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, JSON.stringify(value, null, 2));
    files++;
  };
  const putSigned = (rel: string, kind: SignedKind, fields: Record<string, unknown>, by: string) => {
    put(rel, signFields(kind, fields, by, signer(by)));
    signed++;
  };
  for (const name of [OPS, ...WORKERS]) {
    put(`agents/${name}.json`, { name, role: name === OPS ? 'operator' : 'worker', capabilities: [], public_key: naclPublicKey(seeds.get(name) as string) });
  }
  const ts = (minutes: number) => new Date(Date.UTC(2026, 10, 1) + minutes * 60_000).toISOString().replace('.000Z', 'Z');
  const ledgerLines = new Map<string, string[]>();
  for (let i = 0; i < n; i++) {
    const id = `order-${String(i).padStart(6, '0')}`;
    const t = i;
    const requiresReview = rnd() < 0.3;
    putSigned(`tasks/${id}/order.json`, 'order', { id, project_id: 'bench', issued_by: OPS, created_at: ts(t), payload: { task: `task ${i}`, repo: `repo-${i % 50}`, weight: Math.round(rnd() * 1000) / 10 }, requires_review: requiresReview, requires_approval: false }, OPS);
    const r = rnd();
    if (r < 0.12) continue; // open
    const agent = WORKERS[Math.floor(rnd() * WORKERS.length)] as string;
    put(`tasks/${id}/claim.${agent}.json`, { order_id: id, agent, claimed_at: ts(t + 1) });
    put(`tasks/${id}/heartbeat.${agent}.json`, { order_id: id, agent, run: `run-${i}`, pid: 1000 + (i % 30000), at: ts(t + 2) });
    const lines = ledgerLines.get(agent) ?? [];
    ledgerLines.set(agent, lines);
    lines.push(`claimed ${id}`);
    if (rnd() < 0.5) {
      // An earlier claimant whose claim the operator released (requeued).
      const prev = WORKERS[(WORKERS.indexOf(agent) + 1) % WORKERS.length] as string;
      put(`tasks/${id}/claim.${prev}.json`, { order_id: id, agent: prev, claimed_at: ts(t) });
      putSigned(`tasks/${id}/release.${OPS}.${prev}.json`, 'release', { order_id: id, released: prev, releaser: OPS, reason: 'requeued: stale', at: ts(t + 1) }, OPS);
    }
    if (r < 0.25) {
      if (rnd() < 0.3) putSigned(`tasks/${id}/interrupt.${OPS}.json`, 'interrupt', { order_id: id, action: 'steer', note: 'focus on the failing test', issued_by: OPS, created_at: ts(t + 5) }, OPS);
      continue; // running / stale
    }
    if (r < 0.3) {
      const g = signFields('giveup', { order_id: id, agent, run: `run-${i}`, reason: 'retry ceiling reached', attempts: 3, at: ts(t + 30) }, agent, signer(agent));
      put(`tasks/${id}/giveup.${agent}.json`, g);
      signed++;
      if (rnd() < 0.5) {
        const digest = sha256HexOfText(JSON.stringify(g, null, 2));
        putSigned(`tasks/${id}/ack.${OPS}.json`, 'ack', { order_id: id, operator: OPS, target: `giveup:${digest}`, note: 'known flaky', at: ts(t + 60) }, OPS);
      }
      continue;
    }
    if (r < 0.35) {
      putSigned(`tasks/${id}/release.${OPS}.${agent}.json`, 'release', { order_id: id, released: agent, releaser: OPS, reason: 'requeued: stale', at: ts(t + 40) }, OPS);
      continue;
    }
    putSigned(`tasks/${id}/result.${agent}.${revisionComponent(1)}.json`, 'result', { order_id: id, agent, revision: 1, submitted_at: ts(t + 20), payload: { summary: `done ${i}`, ratio: rnd() } }, agent);
    if (requiresReview) {
      putSigned(`tasks/${id}/recommendation.${OPS}.${revisionComponent(1)}.json`, 'recommendation', { order_id: id, revision: 1, reviewer: OPS, recommended_at: ts(t + 22), accept: true, reasoning: 'tests pass' }, OPS);
    }
    if (requiresReview && rnd() < 0.7) {
      putSigned(`tasks/${id}/review.${revisionComponent(1)}.json`, 'review', { order_id: id, revision: 1, reviewer: OPS, reviewed_at: ts(t + 25), accepted: rnd() < 0.8 }, OPS);
    }
  }
  // Ledger files: one per worker, at most 2,000 lines each (1 MiB cap).
  for (const [agent, summaries] of ledgerLines) {
    const out: string[] = [];
    for (const summary of summaries.slice(0, 2000)) {
      out.push(signLedgerLine({ kind: 'claim', actor: agent, summary, created_at: ts(0) }, out[out.length - 1] ?? null, agent, signer(agent)));
      signed++;
    }
    fs.writeFileSync(path.join(root, `ledger.${agent}.jsonl`), out.map((l) => l + '\n').join(''));
    files++;
  }
  const g: Generated = { root, orders: n, files, signed };
  fs.writeFileSync(meta, JSON.stringify(g));
  return g;
}
