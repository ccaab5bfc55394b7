/**
 * A realistic synthetic channel for benchmarks: N orders, about
 * six files each, signed with node:crypto (fast; identical signatures to tweetnacl).
 *
 * - Deterministic: every order draws from its own seeded PRNG (order i looks the same in every
 *   N), so a generation can resume from its last checkpoint and the 10,000 channel is the
 *   first tenth of the 100,000 one.
 * - Cached under `<cacheDir>/channel-v2-<N>/` with `channel-v2-<N>.json` (meta) and
 *   `channel-v2-<N>.plan.json` (what the bench needs: live heartbeats, open and running
 *   orders) beside it. A generation that was interrupted resumes from
 *   `channel-v2-<N>.progress`.
 * - Arrivals are file ctimes, which only "now" can set. Every file is written
 *   at generation time; `refreshLiveHeartbeats` rewrites the live runs' heartbeats (temp +
 *   rename, new ctime) just before a measurement, so with `stale_after` shorter than the age
 *   of the generation the board shows a realistic mix: running, stale (heartbeat_lapsed, and
 *   agent_silent for the dead workers), attention, review, queue, done.
 *
 * Mix per order (see `planOrder`): ~6 % open/offered/blocked, ~10 % running, ~4 % stale,
 * ~2.5 % gave up (half acknowledged), ~3 % requeued, ~2 % changes requested, ~3 % awaiting
 * review, the rest done or accepted (some after a sent-back revision); half of the claimed
 * orders carry an earlier run that an operator requeued (claim, heartbeat, release); rare
 * double runs, late results, bad records, sync conflicts, missing dependencies; one retired
 * worker. Ledger files: one per worker and one for ops, at most 2,000 signed lines each.
 *
 * Run alone: `node --conditions=react-server --import tsx bench/generate.ts --orders N [--cache DIR]`.
 */
import { createPrivateKey, sign as cryptoSign, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { naclPublicKey } from '../lib/ledger/nacl-verify';
import { revisionComponent } from '../lib/ledger/names';
import { signFields, signLedgerLine, type SignedKind } from '../lib/ledger/sign';
import { sha256HexOfText } from '../lib/ledger/canonical';
import { decisionTarget } from '../lib/ledger/targets';
import { mulberry32 } from '../lib/util/prng';

/** Bump when the generated content changes: cached channels of another version are not reused. */
export const GENERATOR_VERSION = 2;

const PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex');
export const WORKERS = Array.from({ length: 40 }, (_, i) => `worker-${String(i).padStart(2, '0')}`);
/** Retired by ops (and dead), an old identity that took 0.5 % of the orders: whatever it holds is flagged retired_holder. */
export const RETIRED_WORKER = 'worker-old';
/** Workers whose machines are gone: their heartbeats are never refreshed (agent_silent). */
export const DEAD_WORKERS = ['worker-37', 'worker-38', 'worker-39', RETIRED_WORKER];
export const OPS = 'ops';
export const REVIEWER = 'reviewer-1';
export const ALIVE = WORKERS.filter((w) => !DEAD_WORKERS.includes(w));
/** Signed lines a writer's ledger file holds at most (a channel's ledger files stay near 1 MiB each). */
export const LEDGER_CAP = 2000;
const BASE_MS = Date.UTC(2026, 10, 1);

/** The seed (hex) of a generated identity: `sha256("bench-seed:<name>")`. */
export const benchSeed = (name: string): string => sha256HexOfText(`bench-seed:${name}`);

/** An Ed25519 signer (hex signature) for a bench identity, with node:crypto. */
export function benchSigner(name: string): (payload: string) => string {
  const key: KeyObject = createPrivateKey({ key: Buffer.concat([PKCS8, Buffer.from(benchSeed(name), 'hex')]), format: 'der', type: 'pkcs8' });
  return (payload) => cryptoSign(null, Buffer.from(payload), key).toString('hex');
}

export interface Generated {
  readonly root: string;
  readonly orders: number;
  readonly files: number;
  readonly signed: number;
  readonly version?: number;
  /** Bytes written (file contents). */
  readonly bytes?: number;
  /** When the generation finished (ms): files older than this arrived then. */
  readonly generated_at_ms?: number;
  /** The plan file (see `Plan`). */
  readonly plan?: string;
  /** Orders per designed class. */
  readonly classes?: Record<string, number>;
}

/** A live run's heartbeat (rewritten by `refreshLiveHeartbeats`). */
export interface LiveHeartbeat {
  readonly rel: string;
  readonly order_id: string;
  readonly agent: string;
  readonly run: string;
  readonly pid: number;
}

/** What the bench needs to know about the generated channel. */
export interface Plan {
  /** Heartbeats of live runs on alive workers (refreshed before a measurement). */
  readonly live: LiveHeartbeat[];
  /** Orders in state `open` with no history (no assignee, no dependency): claimable. */
  readonly open: string[];
  /** Plain running orders (alive holder, no assignee, no flag): `[order_id, holder]`. */
  readonly running: [string, string][];
}


/** One file of an order, before signing. */
type FileSpec =
  | { readonly rel: string; readonly plain: Record<string, unknown> }
  | { readonly rel: string; readonly kind: SignedKind; readonly fields: Record<string, unknown>; readonly by: string; readonly tamper?: boolean }
  /** An ack of the give-up at `giveup` (its target is the digest of that file's bytes). */
  | { readonly rel: string; readonly ackOf: string; readonly fields: Record<string, unknown> }
  | { readonly rel: string; readonly raw: string };

interface OrderPlan {
  readonly id: string;
  readonly cls: string;
  readonly files: FileSpec[];
  /** Ledger lines: [signer, kind, summary]. */
  readonly ledger: [string, string, string][];
  readonly live: LiveHeartbeat[];
  readonly open: boolean;
  readonly running: string | null;
}

const ts = (minutes: number) => new Date(BASE_MS + Math.round(minutes * 60_000)).toISOString().replace('.000Z', 'Z');
export const orderIdOf = (i: number, n: number) => `order-${String(i).padStart(Math.max(6, String(n - 1).length), '0')}`;
const words = ['parser', 'scheduler', 'cache', 'auth', 'billing', 'search', 'ingest', 'export', 'reports', 'sync', 'mailer', 'gateway'];
const verbs = ['Fix flaky test in', 'Add metrics to', 'Refactor', 'Speed up', 'Document', 'Upgrade dependencies of', 'Harden input checks in', 'Port'];

/** The files of order `i` (deterministic in i; `n` only sets the id width and dependency range). */
function planOrder(i: number, n: number): OrderPlan {
  const rnd = mulberry32(Math.imul(i + 1, 0x9e3779b1) ^ 0x5bd1e995);
  rnd();
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const id = orderIdOf(i, n);
  const t = i * 0.5; // writer clocks: one order every 30 s
  const dir = `tasks/${id}`;
  const files: FileSpec[] = [];
  const ledger: [string, string, string][] = [];
  const live: LiveHeartbeat[] = [];
  const r = rnd();
  const cls =
    r < 0.06 ? 'open'
    : r < 0.16 ? 'running'
    : r < 0.2 ? 'stale'
    : r < 0.225 ? 'gave_up'
    : r < 0.255 ? 'requeued'
    : r < 0.275 ? 'changes_requested'
    : r < 0.305 ? 'awaiting_review'
    : 'done';
  const requiresReview = cls === 'changes_requested' || cls === 'awaiting_review' || (cls !== 'open' && rnd() < 0.35);
  const agent = rnd() < 0.005 ? RETIRED_WORKER : pick(WORKERS);
  const assigned = cls !== 'requeued' && rnd() < 0.08;
  const deps: string[] = [];
  if (i > 0 && rnd() < 0.1) deps.push(orderIdOf(Math.max(0, i - 1 - Math.floor(rnd() * 50)), n));
  if (rnd() < 0.0005) deps.push(`order-missing-${i}`); // missing_dependency
  const word = pick(words);
  files.push({
    rel: `${dir}/order.json`,
    kind: 'order',
    by: OPS,
    fields: {
      id,
      project_id: `proj-${word}`,
      issued_by: OPS,
      ...(assigned ? { assigned_to: agent } : {}),
      created_at: ts(t),
      payload: {
        title: `${pick(verbs)} ${word} (${i})`,
        repo: `git@example.com:fleet/${word}.git`,
        paths: [`src/${word}/mod-${i % 97}.ts`, `src/${word}/mod-${(i * 7) % 97}.test.ts`],
        budget_minutes: 5 + Math.floor(rnd() * 120),
        weight: Math.round(rnd() * 1000) / 10,
        labels: rnd() < 0.5 ? ['bench', word] : ['bench'],
      },
      requires_review: requiresReview,
      requires_approval: false,
      depends_on: deps,
    },
  });
  if (cls === 'open') {
    return { id, cls, files, ledger, live, open: !assigned && deps.length === 0, running: null };
  }

  // An earlier run that stopped and that ops requeued: its claim, heartbeat, and the release.
  let prev: string | null = null;
  if (!assigned && rnd() < 0.55) {
    prev = WORKERS[(Math.max(0, WORKERS.indexOf(agent)) + 1 + Math.floor(rnd() * 5)) % WORKERS.length] as string;
    files.push({ rel: `${dir}/claim.${prev}.json`, plain: { order_id: id, agent: prev, claimed_at: ts(t + 0.2) } });
    files.push({ rel: `${dir}/heartbeat.${prev}.json`, plain: { order_id: id, agent: prev, run: `run-${i}-a`, pid: 2000 + ((i * 13) % 30000), at: ts(t + 3) } });
    files.push({ rel: `${dir}/release.${OPS}.${prev}.json`, kind: 'release', by: OPS, fields: { order_id: id, released: prev, releaser: OPS, reason: 'requeued: heartbeat stopped', at: ts(t + 15) } });
    ledger.push([prev, 'claim', `claimed ${id}`], [OPS, 'release', `released ${prev} from ${id}`]);
  }
  const claimedAt = prev ? t + 16 : t + 0.5;
  const run = `run-${i}`;
  const pid = 1000 + (i % 30000);
  files.push({ rel: `${dir}/claim.${agent}.json`, plain: { order_id: id, agent, claimed_at: ts(claimedAt) } });
  const hbRel = `${dir}/heartbeat.${agent}.json`;
  files.push({ rel: hbRel, plain: { order_id: id, agent, run, pid, at: ts(claimedAt + 2) } });
  ledger.push([agent, 'claim', `claimed ${id}`]);
  const alive = !DEAD_WORKERS.includes(agent);
  const liveRun = (cls === 'running' || cls === 'changes_requested') && alive;
  if (liveRun) live.push({ rel: hbRel, order_id: id, agent, run, pid });
  let running: string | null = null;

  const result = (who: string, rev: number, at: number) => {
    files.push({
      rel: `${dir}/result.${who}.${revisionComponent(rev)}.json`,
      kind: 'result',
      by: who,
      fields: {
        order_id: id,
        agent: who,
        revision: rev,
        submitted_at: ts(at),
        payload: { summary: `${word}: done (${i}, rev ${rev})`, changed_files: 1 + Math.floor(rnd() * 9), tests: { passed: 20 + Math.floor(rnd() * 200), failed: 0 }, coverage: Math.round(rnd() * 1e4) / 1e4 },
      },
    });
    ledger.push([who, 'result', `result ${id} rev ${rev}`]);
  };
  const recommend = (rev: number, at: number, accept: boolean) =>
    files.push({ rel: `${dir}/recommendation.${REVIEWER}.${revisionComponent(rev)}.json`, kind: 'recommendation', by: REVIEWER, fields: { order_id: id, revision: rev, reviewer: REVIEWER, recommended_at: ts(at), accept, reasoning: accept ? 'tests pass, diff is small' : 'missing a test for the edge case' } });
  const review = (rev: number, at: number, accepted: boolean) =>
    files.push({ rel: `${dir}/review.${revisionComponent(rev)}.json`, kind: 'review', by: OPS, fields: { order_id: id, revision: rev, reviewer: OPS, reviewed_at: ts(at), accepted, ...(accepted ? {} : { notes: 'please add a regression test' }) } });

  switch (cls) {
    case 'running': {
      if (rnd() < 0.2) files.push({ rel: `${dir}/interrupt.${OPS}.json`, kind: 'interrupt', by: OPS, fields: { order_id: id, action: 'steer', note: 'focus on the failing test first', issued_by: OPS, created_at: ts(claimedAt + 10) } });
      const x = rnd();
      if (x < 0.05) {
        // double_run: another machine runs the same order (a fresh heartbeat, no claim).
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- false positive: tsc needs it (`other` is pushed as a string below)
        const other = ALIVE[(ALIVE.indexOf(agent) + 7 + ALIVE.length) % ALIVE.length] ?? (ALIVE[0] as string);
        if (other !== agent && alive) {
          const rel = `${dir}/heartbeat.${other}.json`;
          files.push({ rel, plain: { order_id: id, agent: other, run: `run-${i}-dup`, pid: pid + 1, at: ts(claimedAt + 3) } });
          live.push({ rel, order_id: id, agent: other, run: `run-${i}-dup`, pid: pid + 1 });
        }
      } else if (x < 0.07) {
        // sync_conflict: a Syncthing conflict copy of the heartbeat.
        files.push({ rel: `${dir}/heartbeat.${agent}.sync-conflict-20261101-101010-BENCHDV.json`, plain: { order_id: id, agent, run, pid, at: ts(claimedAt + 1) } });
      } else if (alive && !assigned && !prev && deps.length < 2) {
        running = agent;
      }
      break;
    }
    case 'stale':
      break; // the heartbeat is never refreshed
    case 'gave_up': {
      const gRel = `${dir}/giveup.${agent}.json`;
      files.push({ rel: gRel, kind: 'giveup', by: agent, fields: { order_id: id, agent, run, reason: 'retry ceiling reached', attempts: 3, at: ts(claimedAt + 30) } });
      if (rnd() < 0.5) {
        files.push({ rel: `${dir}/ack.${OPS}.json`, ackOf: gRel, fields: { order_id: id, operator: OPS, note: 'known flaky upstream', at: ts(claimedAt + 60) } });
        ledger.push([OPS, 'ack', `acknowledged the give-up of ${agent} on ${id}`]);
      }
      break;
    }
    case 'requeued':
      files.push({ rel: `${dir}/release.${OPS}.${agent}.json`, kind: 'release', by: OPS, fields: { order_id: id, released: agent, releaser: OPS, reason: 'requeued: stale', at: ts(claimedAt + 40) } });
      ledger.push([OPS, 'release', `released ${agent} from ${id}`]);
      break;
    case 'changes_requested':
      result(agent, 1, claimedAt + 20);
      recommend(1, claimedAt + 21, false);
      review(1, claimedAt + 25, false);
      break;
    case 'awaiting_review':
      result(agent, 1, claimedAt + 20);
      recommend(1, claimedAt + 21, true);
      break;
    case 'done': {
      const sentBack = requiresReview && rnd() < 0.25;
      result(agent, 1, claimedAt + 20);
      if (requiresReview) {
        recommend(1, claimedAt + 21, !sentBack);
        review(1, claimedAt + 25, !sentBack);
        if (sentBack) {
          result(agent, 2, claimedAt + 40);
          recommend(2, claimedAt + 41, true);
          review(2, claimedAt + 45, true);
        }
      }
      const y = rnd();
      if (y < 0.02) {
        if (prev) result(prev, 1, claimedAt + 30); // late_result: the requeued run finished anyway
      } else if (y < 0.024) files.push({ rel: `${dir}/result.${agent}.${revisionComponent(9)}.json`, kind: 'result', by: agent, tamper: true, fields: { order_id: id, agent, revision: 9, submitted_at: ts(claimedAt + 50), payload: { summary: 'tampered' } } }); // bad_record
      else if (y < 0.026) files.push({ rel: `${dir}/result.${agent}.${revisionComponent(8)}.json`, raw: '{"order_id": "truncated' }); // bad_record (invalid)
      break;
    }
  }
  return { id, cls, files, ledger, live, open: false, running };
}

/** Writes `text` to `abs` via a dot-named temp file and rename (new inode, new ctime), as Syncthing does. */
export function writeAtomic(abs: string, text: string): void {
  const tmp = path.join(path.dirname(abs), `.bench-${process.pid}-${Math.random().toString(36).slice(2)}.tmp`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, abs);
}

const pretty = (v: unknown) => JSON.stringify(v, null, 2);

/**
 * Disk a generated channel takes per order, measured on the 100,000-order channel (ext4, 4 KiB
 * blocks: 2,860,609,536 bytes by `du`, 590,651 files and 100,000 folders): almost every file
 * is one block.
 */
const DISK_PER_ORDER = 28_606;
const INODES_PER_ORDER = 6.91;

/**
 * States up front what generating `orders` more orders takes on disk (bytes and inodes, from the
 * measured figures above) beside what the filesystem of `dir` has free; throws, writing nothing,
 * when that is less than the estimate plus 10 %.
 */
function diskCheck(orders: number, dir: string, log: (line: string) => void): void {
  const bytes = orders * DISK_PER_ORDER;
  const inodes = Math.ceil(orders * INODES_PER_ORDER);
  const st = fs.statfsSync(dir);
  const freeBytes = st.bavail * st.bsize;
  const gb = (b: number) => `${(b / 1e9).toFixed(1)} GB`;
  log(`generate: ${orders} orders to write: about ${gb(bytes)} on disk and ${inodes.toLocaleString('en')} inodes; free in ${dir}: ${gb(freeBytes)}, ${st.ffree.toLocaleString('en')} inodes`);
  if (freeBytes < bytes * 1.1 || st.ffree < inodes * 1.1) throw new Error(`not enough room in ${dir} for the channel (needs about ${gb(bytes)} and ${inodes.toLocaleString('en')} inodes, 10 % spare): free some, or pass --cache DIR elsewhere`);
}

/**
 * Writes (once; cached by N and the ledger cap under `cacheDir`, resumable) a channel of `n`
 * orders, each writer's ledger file holding at most `ledgerCap` lines (default LEDGER_CAP; a
 * hub's channels are given their share of it, bench/hub.ts). Returns its root and counts. `log`
 * gets progress lines.
 */
export function generateChannel(n: number, cacheDir: string, log: (line: string) => void = () => {}, ledgerCap = LEDGER_CAP): Generated {
  const base = path.join(cacheDir, `channel-v${GENERATOR_VERSION}-${n}${ledgerCap === LEDGER_CAP ? '' : `-ledger${ledgerCap}`}`);
  const root = base;
  const metaFile = `${base}.json`;
  const planFile = `${base}.plan.json`;
  const progressFile = `${base}.progress`;
  if (fs.existsSync(metaFile) && fs.existsSync(root)) return JSON.parse(fs.readFileSync(metaFile, 'utf8')) as Generated;
  fs.mkdirSync(cacheDir, { recursive: true });
  let from = 0;
  if (fs.existsSync(progressFile) && fs.existsSync(root)) {
    from = Number(fs.readFileSync(progressFile, 'utf8').trim()) || 0;
    log(`generate: resuming ${root} at order ${from} of ${n}`);
  } else {
    fs.rmSync(root, { recursive: true, force: true });
  }
  diskCheck(n - from, cacheDir, log);
  const signers = new Map<string, (p: string) => string>();
  const signerOf = (name: string) => {
    let s = signers.get(name);
    if (!s) signers.set(name, (s = benchSigner(name)));
    return s;
  };
  let files = 0;
  let signed = 0;
  let bytes = 0;
  const madeDirs = new Set<string>();
  const put = (rel: string, text: string) => {
    const abs = path.join(root, rel);
    const d = path.dirname(abs);
    if (!madeDirs.has(d)) {
      fs.mkdirSync(d, { recursive: true });
      madeDirs.add(d);
    }
    fs.writeFileSync(abs, text);
  };
  const ledgerLines = new Map<string, [string, string][]>();
  const plan: Plan = { live: [], open: [], running: [] };
  const classes: Record<string, number> = {};
  const t0 = Date.now();
  let lastLog = t0;
  for (let i = 0; i < n; i++) {
    const p = planOrder(i, n);
    classes[p.cls] = (classes[p.cls] ?? 0) + 1;
    for (const [who, kind, summary] of p.ledger) {
      const list = ledgerLines.get(who) ?? [];
      if (list.length < ledgerCap) list.push([kind, summary]);
      ledgerLines.set(who, list);
    }
    plan.live.push(...p.live);
    if (p.open) plan.open.push(p.id);
    if (p.running) plan.running.push([p.id, p.running]);
    files += p.files.length;
    for (const f of p.files) if (!('plain' in f) && !('raw' in f)) signed++;
    if (i < from) continue; // written before the interruption
    const texts = new Map<string, string>();
    for (const f of p.files) {
      let text: string;
      if ('plain' in f) text = pretty(f.plain);
      else if ('raw' in f) text = f.raw;
      else if ('ackOf' in f) {
        const target = decisionTarget({ kind: 'giveup', digest: sha256HexOfText(texts.get(f.ackOf) ?? '') });
        text = pretty(signFields('ack', { ...f.fields, target }, OPS, signerOf(OPS)));
      } else {
        const rec = signFields(f.kind, f.fields, f.by, signerOf(f.by));
        if (f.tamper) rec.signature = String(rec.signature).replace(/^./, (c) => (c === '0' ? '1' : '0'));
        text = pretty(rec);
      }
      texts.set(f.rel, text);
      bytes += Buffer.byteLength(text);
      put(f.rel, text);
    }
    if ((i + 1) % 1000 === 0) {
      fs.writeFileSync(progressFile, String(i + 1));
      madeDirs.clear();
      if (Date.now() - lastLog > 5000) {
        lastLog = Date.now();
        log(`generate: ${i + 1} of ${n} orders, ${files} files (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
      }
    }
  }
  // Roster, retirement, ledger files.
  for (const name of [OPS, REVIEWER, ...WORKERS, RETIRED_WORKER]) {
    const text = pretty({ name, role: name === OPS ? 'operator' : name === REVIEWER ? 'reviewer' : 'worker', capabilities: name.startsWith('worker') ? ['code', 'test'] : [], public_key: naclPublicKey(benchSeed(name)) });
    put(`agents/${name}.json`, text);
    bytes += text.length;
    files++;
  }
  {
    const text = pretty(signFields('retirement', { agent: RETIRED_WORKER, operator: OPS, reason: 'machine rebuilt', at: ts(n * 0.5) }, OPS, signerOf(OPS)));
    put(`retirements/${RETIRED_WORKER}.${OPS}.json`, text);
    bytes += text.length;
    files++;
    signed++;
  }
  for (const [who, lines] of ledgerLines) {
    const out: string[] = [];
    for (const [kind, summary] of lines) {
      out.push(signLedgerLine({ kind, actor: who, summary, created_at: ts(out.length) }, out[out.length - 1] ?? null, who, signerOf(who)));
      signed++;
    }
    const text = out.map((l) => l + '\n').join('');
    put(`ledger.${who}.jsonl`, text);
    bytes += text.length;
    files++;
  }
  fs.writeFileSync(planFile, JSON.stringify(plan));
  const g: Generated = { root, orders: n, files, signed, version: GENERATOR_VERSION, bytes, generated_at_ms: Date.now(), plan: planFile, classes };
  fs.writeFileSync(metaFile, JSON.stringify(g, null, 2));
  fs.rmSync(progressFile, { force: true });
  log(`generate: ${n} orders, ${files} files, ${signed} signatures in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return g;
}

/** The plan of a generated channel. */
export function readPlan(g: Generated): Plan {
  if (!g.plan) throw new Error(`${g.root}: no plan (generated by an older generator); delete its meta file to regenerate`);
  return JSON.parse(fs.readFileSync(g.plan, 'utf8')) as Plan;
}

/**
 * Rewrites every live heartbeat (temp + rename: a new ctime, i.e. it arrives now) with its
 * writer clock `at` = now. Returns how many.
 */
export function refreshLiveHeartbeats(g: Generated, plan: Plan, nowMs = Date.now()): number {
  const at = new Date(nowMs).toISOString();
  for (const h of plan.live) {
    writeAtomic(path.join(g.root, h.rel), pretty({ order_id: h.order_id, agent: h.agent, run: h.run, pid: h.pid, at }));
  }
  return plan.live.length;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const arg = (name: string) => {
    const k = process.argv.indexOf(name);
    return k > 0 ? process.argv[k + 1] : undefined;
  };
  const n = Number(arg('--orders') ?? 10_000);
  const cache = path.resolve(arg('--cache') ?? path.join(import.meta.dirname, '.cache'));
  const g = generateChannel(n, cache, (l) => console.error(l));
  console.log(JSON.stringify(g));
}
