import 'server-only';
/**
 * The fuzzer's rounds on a real disk: places the base channel and a hostile plan
 * (test/fuzz/mutate.ts) in a temp folder, with real files, real symlinks to a sibling folder
 * outside the channel, FIFOs and names that are not UTF-8; runs the real reader and
 * derivation (channelStateOf) and the real Indexer (a cold index, and an incremental one that
 * saw the folder before the hostile files arrived); and checks the invariants:
 *
 * 1. nothing throws, and a round ends in bounded time;
 * 2. every record that is valid without the hostile files is still read as a record, and every
 *    card derives as it does without them, except for the `bad_record`/`sync_conflict` flags
 *    (and the lane those flags move it to); the roster and retirements are unchanged;
 * 3. every hostile entry is skipped silently where docs/channel-format.md says so, or is exactly one
 *    problem row with an allowed code of §2 (ledger files: a report, `ledger_broken` when broken);
 *    no other problem appears;
 * 4. nothing outside the channel is ever opened or listed (checked on the file descriptors the
 *    reader really opens), and the marker written only outside never appears in what is indexed;
 * 5. the incremental index equals the cold index, and both equal channelStateOf.
 *
 * Just over 500 lines: the fuzz round and its invariants, checked in the order they are stated above.
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, sign as cryptoSign, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { deriveChannel, type ChannelState, type Problem, type ProblemCode } from '../../lib/ledger/channel';
import { laneOf, type Card } from '../../lib/ledger/derive';
import { channelStateOf } from '../../lib/index/channel-state';
import { readChannel } from '../../lib/index/disk/read-channel';
import { serverVerify } from '../../lib/index/disk/verifier';
import { openMemory, type DB } from '../../lib/index/db';
import { Indexer, type IndexerOptions } from '../../lib/index/indexer';
import { baseChannel, LEDGER_PROBLEM_CODES, planRound, type Hostile, type Keys, type Plan } from './mutate';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const privateKeys = new Map<string, KeyObject>();
const privateKey = (seedHex: string) => {
  let k = privateKeys.get(seedHex);
  if (!k) privateKeys.set(seedHex, (k = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, Buffer.from(seedHex, 'hex')]), format: 'der', type: 'pkcs8' })));
  return k;
};
/** Ed25519 with node:crypto: the same bytes as tweetnacl, a hundred times faster. */
export const NODE_KEYS: Keys = {
  sign: (seedHex, payload) => cryptoSign(null, Buffer.from(payload, 'utf8'), privateKey(seedHex)).toString('hex'),
  publicKey: (seedHex) => (createPublicKey(privateKey(seedHex)).export({ format: 'der', type: 'spki' }) as Buffer).subarray(12).toString('hex'),
};

/** One broken invariant. */
export interface Violation {
  readonly seed: number;
  readonly invariant: string;
  readonly detail: string;
  readonly op?: string;
  readonly path?: string;
}

/** An exception thrown by product code during a round. */
export interface Crash {
  readonly seed: number;
  readonly stage: string;
  readonly message: string;
}

export interface RoundReport {
  readonly seed: number;
  /** Hostile entries placed. */
  readonly files: number;
  readonly codes: readonly ProblemCode[];
  readonly ops: Readonly<Record<string, number>>;
  readonly violations: readonly Violation[];
  readonly crashes: readonly Crash[];
  readonly ms: number;
}

export interface RoundOptions {
  /** Hostile entries per round (default 25). */
  readonly count?: number;
  /** A round taking longer than this is a violation ("hangs"), ms (default 60 000). */
  readonly boundMs?: number;
  /** Run the Indexer checks (default true). */
  readonly indexer?: boolean;
  /** Keep the round's folder for inspection (default false). */
  readonly keep?: boolean;
}

// ---- watching what the reader opens -------------------------------------------------------------

let watchDir: string | null = null;
let channelReal: string | null = null;
const escapes: string[] = [];

const inside = (real: string) => channelReal !== null && (real === channelReal || real.startsWith(channelReal + path.sep));
const underRound = (real: string) => watchDir !== null && real.startsWith(watchDir + path.sep);

function noteReal(real: string | null, what: string): void {
  if (real && underRound(real) && !inside(real)) escapes.push(`${what} ${real}`);
}
function realOf(p: fs.PathLike): string | null {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return null;
  }
}

let installed = false;
/**
 * Wraps fs.openSync / readdirSync / readFileSync / statSync / opendirSync so that, while a round
 * watches, any of them that reaches a path outside the channel (under the round's folder) is
 * recorded. An opened descriptor is resolved through /proc/self/fd: what was really opened.
 */
function installWatch(): void {
  if (installed) return;
  installed = true;
  const f = fs as unknown as Record<string, (...a: unknown[]) => unknown>;
  const open = f.openSync as (...a: unknown[]) => number;
  f.openSync = (...a: unknown[]) => {
    const fd = open(...a);
    if (watchDir !== null) {
      try {
        noteReal(fs.readlinkSync(`/proc/self/fd/${fd}`), 'opened');
      } catch {
        /* no /proc: the path checks below still apply */
      }
    }
    return fd;
  };
  for (const name of ['readdirSync', 'readFileSync', 'statSync', 'opendirSync'] as const) {
    const orig = f[name] as (...a: unknown[]) => unknown;
    f[name] = (...a: unknown[]) => {
      if (watchDir !== null && (typeof a[0] === 'string' || Buffer.isBuffer(a[0]))) noteReal(realOf(a[0]), name);
      return orig(...a);
    };
  }
}

// ---- placing a plan on disk ---------------------------------------------------------------------

const rawJoin = (root: string, raw: Uint8Array) => Buffer.concat([Buffer.from(root + '/'), Buffer.from(raw)]);

function mkdirsFor(root: string, rel: string, raw?: Uint8Array): void {
  if (!raw) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    return;
  }
  // Component by component: some may not be UTF-8.
  const parts: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i <= raw.length; i++) {
    if (i === raw.length || raw[i] === 0x2f) {
      parts.push(raw.slice(start, i));
      start = i + 1;
    }
  }
  let cur = Buffer.from(root);
  for (const p of parts.slice(0, -1)) {
    cur = Buffer.concat([cur, Buffer.from('/'), Buffer.from(p)]);
    if (!fs.existsSync(cur)) fs.mkdirSync(cur);
  }
}

function writeBase(root: string, replaced: ReadonlySet<string>): void {
  for (const f of baseChannel().files) {
    if (replaced.has(f.path)) continue;
    mkdirsFor(root, f.path);
    fs.writeFileSync(path.join(root, f.path), f.bytes);
  }
}

function placeHostile(root: string, outside: string, h: Hostile): void {
  const target: fs.PathLike = h.rawPath ? rawJoin(root, h.rawPath) : path.join(root, h.path);
  if (h.replaces) fs.rmSync(target, { recursive: true, force: true });
  mkdirsFor(root, h.path, h.rawPath);
  switch (h.type) {
    case 'file':
      fs.writeFileSync(target, h.bytes);
      return;
    case 'dir':
      fs.mkdirSync(target, { recursive: true });
      for (const c of h.children) fs.writeFileSync(path.join(String(target), c.name), c.bytes);
      return;
    case 'fifo':
      execFileSync('mkfifo', [String(target)]);
      return;
    case 'symlink': {
      const t = h.target;
      const abs = String(target);
      const text =
        'raw' in t
          ? t.raw
          : 'inside' in t
            ? path.relative(path.dirname(abs), path.join(root, t.inside))
            : t.absolute
              ? path.join(outside, t.outside)
              : path.relative(path.dirname(abs), path.join(outside, t.outside));
      fs.symlinkSync(text, target);
      return;
    }
  }
}

function placeOutside(outside: string, plan: Plan): void {
  fs.mkdirSync(outside, { recursive: true });
  for (const f of plan.outside) {
    fs.mkdirSync(path.dirname(path.join(outside, f.path)), { recursive: true });
    fs.writeFileSync(path.join(outside, f.path), f.bytes);
  }
}

// ---- comparing --------------------------------------------------------------------------------

const QUIET_FLAGS = new Set(['bad_record', 'sync_conflict']);

/** A card without the flags bad files may add, in the lane it would have without them. */
function normalizeCard(c: Card): Card {
  const flags = c.flags.filter((f) => !QUIET_FLAGS.has(f));
  // The words of a flag name the bad files; the flags themselves are compared.
  const alerts = c.alerts.filter((a) => !QUIET_FLAGS.has(a.flag)).map((a) => ({ flag: a.flag, text: '' }));
  return { ...c, flags, alerts, lane: laneOf(c.state, flags, c.run_lane) };
}

/**
 * Orders with a bad file the real ferry reads all the same (a misnamed claim, a release by a
 * worker of another's claim, docs/channel-format.md): their state may differ from the baseline's,
 * as ferry's would; the file must still be a problem row that flags the order.
 */
function ferryReadOrders(s: ChannelState): Set<string> {
  const out = new Set<string>();
  for (const [id, v] of s.views) if (v.files.some((f) => f.status === 'problem' && f.ferry !== undefined)) out.add(id);
  return out;
}

/** Paths read as valid records (and ledger files read), by kind of outcome. */
function recordPaths(s: ChannelState): Set<string> {
  const out = new Set<string>();
  for (const v of s.views.values()) for (const f of v.files) if (f.status === 'record') out.add(f.path);
  for (const e of s.roster.entries.values()) out.add(e.path);
  for (const r of s.retirements) out.add(r.path);
  return out;
}

function snapshot(db: DB) {
  return {
    cards: db.prepare('SELECT order_id, state, lane, holder, card FROM cards ORDER BY order_id').all() as { order_id: string; state: string; lane: string; holder: string | null; card: string }[],
    problems: db.prepare('SELECT path, problem, detail, line, order_id FROM problems ORDER BY path, problem, line, detail').all() as { path: string; problem: string; detail: string; line: number | null; order_id: string | null }[],
    ledger: db.prepare('SELECT path, entries, intact, broken_at FROM ledger_files ORDER BY path').all(),
  };
}

function stateSnapshot(s: ChannelState) {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    cards: s.orders.map((c) => ({ order_id: c.order_id, state: c.state, lane: c.lane, holder: c.holder, card: JSON.stringify(c) })),
    problems: [...s.problems]
      .map((p) => ({ path: p.path, problem: p.problem, detail: p.detail, line: p.line ?? null, order_id: p.order_id ?? null }))
      .sort((a, b) => cmp(a.path, b.path) || cmp(a.problem, b.problem) || (a.line ?? 0) - (b.line ?? 0) || cmp(a.detail, b.detail)),
    ledger: Object.entries(s.ledger)
      .map(([p, r]) => ({ path: p, entries: r.entries, intact: r.intact ? 1 : 0, broken_at: r.broken_at ?? null }))
      .sort((a, b) => cmp(a.path, b.path)),
  };
}

function firstDifference(a: unknown, b: unknown, where = ''): string | null {
  if (JSON.stringify(a) === JSON.stringify(b)) return null;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${where}[${i}]`);
      if (d) return d;
    }
    return `${where}: lengths ${a.length} vs ${b.length}`;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${where}.${k}`);
      if (d) return d;
    }
  }
  const show = (v: unknown) => {
    const s = JSON.stringify(v) ?? String(v);
    return s.length > 300 ? s.slice(0, 300) + '…' : s;
  };
  return `${where}: ${show(a)} vs ${show(b)}`;
}

// ---- one round ---------------------------------------------------------------------------------

/**
 * Runs one round seeded `seed` in a new folder under `workDir` (removed afterwards unless
 * `keep`). Never throws for what the product code does: exceptions are reported as crashes.
 */
export async function fuzzRound(seed: number, workDir: string, opts: RoundOptions = {}): Promise<RoundReport> {
  installWatch();
  const t0 = Date.now();
  const plan = planRound(seed, opts.count ?? 25, NODE_KEYS);
  const dir = fs.mkdtempSync(path.join(workDir, `round-${seed}-`));
  const root = path.join(dir, 'channel');
  const outside = path.join(dir, 'outside');
  const violations: Violation[] = [];
  const crashes: Crash[] = [];
  const violate = (invariant: string, detail: string, h?: Hostile) =>
    violations.push({ seed, invariant, detail, ...(h ? { op: h.op, path: h.path } : {}) });
  const ops: Record<string, number> = {};
  for (const h of plan.hostile) ops[h.op] = (ops[h.op] ?? 0) + 1;
  const replaced = new Set(plan.hostile.filter((h) => h.replaces).map((h) => h.path));
  const guarded = async <T>(stage: string, f: () => T | Promise<T>): Promise<T | null> => {
    try {
      return await f();
    } catch (e) {
      crashes.push({ seed, stage, message: e instanceof Error ? (e.stack ?? e.message).split('\n').slice(0, 6).join('\n') : String(e) });
      return null;
    }
  };
  const cleanups: (() => void | Promise<void>)[] = [];
  let codes: ProblemCode[] = [];
  try {
    fs.mkdirSync(root);
    placeOutside(outside, plan);
    // The folder as it was before the hostile files arrived: an incremental index watches it.
    const nowMs = Date.now() + 1000;
    writeBase(root, new Set());
    const withIndexer = opts.indexer !== false;
    const incDb = withIndexer ? openMemory() : null;
    if (incDb) cleanups.push(() => void incDb.close());
    const indexerOpts = (db: DB, workers = 0) => {
      // The clock stands still here: a vanished file's grace (vanishGraceMs) must not outlast it.
      const o = { root, db, staleAfterMs: 300_000, clock: () => nowMs, watch: false, verify: serverVerify, workers, vanishGraceMs: 0 };
      return o as IndexerOptions;
    };
    const inc = incDb ? new Indexer(indexerOpts(incDb)) : null;
    if (inc) cleanups.push(() => inc.stop());
    watchDir = fs.realpathSync(dir);
    channelReal = fs.realpathSync(root);
    escapes.length = 0;
    if (inc) await guarded('indexer: start on the clean folder', () => inc.start());
    watchDir = null;

    for (const h of plan.hostile) placeHostile(root, outside, h);

    watchDir = fs.realpathSync(dir);
    const hostileState = await guarded('channelStateOf', () => channelStateOf(root, { nowMs }));
    const entries = await guarded('readChannel', () => readChannel(root));
    if (inc) {
      await guarded('indexer: incremental update', () => {
        // Twice: a folder whose file vanished is looked at again once its (zero) grace ended.
        for (let i = 0; i < 2; i++) {
          inc.request(null);
          inc.pump();
        }
      });
    }
    let coldDb: DB | null = null;
    if (withIndexer) {
      coldDb = openMemory();
      const cdb = coldDb;
      cleanups.push(() => void cdb.close());
      // One round in 32 reads the folders on worker threads, as a cold start of a large channel does.
      const cold = new Indexer(indexerOpts(cdb, seed % 32 === 0 ? 2 : 0));
      cleanups.push(() => cold.stop());
      await guarded('indexer: cold start', () => cold.start());
    }
    watchDir = null;
    for (const e of new Set(escapes)) violate('never reads outside the channel', e);

    // The baseline: the same entries (same arrivals) without the hostile ones.
    const gone = (p: string) => replaced.has(p) || [...replaced].some((r) => p.startsWith(`${r}/`));
    const basePaths = new Set(baseChannel().files.map((f) => f.path).filter((p) => !gone(p)));
    const baseDirs = new Set<string>();
    for (const p of basePaths) {
      const parts = p.split('/');
      for (let i = 1; i < parts.length; i++) baseDirs.add(parts.slice(0, i).join('/'));
    }
    if (!hostileState || !entries) return finish();
    const baseline = deriveChannel(
      entries.filter((e) => basePaths.has(e.path) || (e.type === 'dir' && baseDirs.has(e.path))),
      { nowMs, verify: serverVerify },
    );
    codes = [...new Set(hostileState.problems.map((p) => p.problem))];

    // 2. valid records still read, cards as without the hostile files.
    const hRecords = recordPaths(hostileState);
    for (const p of recordPaths(baseline)) {
      if (!hRecords.has(p)) violate('every valid record is still indexed', `${p} is a record without the hostile files, not with them`);
    }
    const hCards = new Map(hostileState.orders.map((c) => [c.order_id, c]));
    const ferryRead = ferryReadOrders(hostileState);
    const extra = new Map(plan.hostile.filter((h) => h.extraCard).map((h) => [h.extraCard as string, h]));
    for (const b of baseline.orders) {
      const h = hCards.get(b.order_id);
      if (!h) {
        violate('every valid record is still indexed', `order ${b.order_id} lost its card`);
        continue;
      }
      if (ferryRead.has(b.order_id)) {
        if (!h.flags.includes('bad_record')) violate('cards derive as without the bad files', `${b.order_id}: a bad file ferry reads did not flag it bad_record`);
        continue;
      }
      const d = firstDifference(normalizeCard(h), normalizeCard(b));
      if (d) violate('cards derive as without the bad files', `${b.order_id}${d}`);
    }
    const baseIds = new Set(baseline.orders.map((c) => c.order_id));
    for (const c of hostileState.orders) {
      if (baseIds.has(c.order_id)) continue;
      const h = extra.get(c.order_id);
      if (!h) violate('no card from a bad file', `card ${c.order_id} (${c.state}) appeared`);
      else if (!c.flags.includes('bad_record')) violate('no card from a bad file', `card ${c.order_id} is not flagged bad_record`, h);
    }
    const rosterOf = (s: ChannelState) => [...s.roster.entries.values()].map((e) => [e.name, e.public_key, e.path, e.role].join(' ')).sort();
    const d1 = firstDifference(rosterOf(hostileState), rosterOf(baseline));
    if (d1) violate('the roster is unchanged', d1);
    const d2 = firstDifference([...hostileState.roster.operators].sort(), [...baseline.roster.operators].sort());
    if (d2) violate('the roster is unchanged', `operators${d2}`);
    const d3 = firstDifference(hostileState.retirements.map((r) => r.path).sort(), baseline.retirements.map((r) => r.path).sort());
    if (d3) violate('retirements are unchanged', d3);

    // 3. every hostile entry skipped or one problem row; no other problem.
    const key = (p: Problem) => `${p.path}\u0000${p.problem}\u0000${p.line ?? ''}`;
    const hProblems = new Map<string, Problem[]>();
    for (const p of hostileState.problems) {
      if (!LEDGER_PROBLEM_CODES.has(p.problem)) violate('problem codes are from docs/channel-format.md', `${p.path}: ${p.problem}`);
      const list = hProblems.get(p.path) ?? [];
      list.push(p);
      hProblems.set(p.path, list);
    }
    const hKeys = new Set(hostileState.problems.map(key));
    for (const p of baseline.problems) if (!hKeys.has(key(p))) violate('problems of the valid folder remain', `${p.path}: ${p.problem} missing`);
    const bKeys = new Set(baseline.problems.map(key));
    const explained = new Set<string>();
    const checkedAt = new Set<string>();
    for (const h of plan.hostile) {
      const e = h.expect;
      if (e.kind === 'skip') {
        for (const [p, list] of hProblems) {
          if (p === h.path || p.startsWith(h.path + '/')) violate('skipped names are skipped silently', `${e.why}: got ${list.map((x) => x.problem).join(', ')} at ${p}`, h);
        }
        if (hRecords.has(h.path) || h.path in hostileState.ledger) violate('skipped names are skipped silently', `${e.why}: read as a record`, h);
        continue;
      }
      if (e.kind === 'benign') continue;
      if (e.kind === 'ledger') {
        explained.add(h.path);
        const r = hostileState.ledger[h.path];
        const rows = hProblems.get(h.path) ?? [];
        if (!r) violate('a ledger file is read as a ledger', 'no ledger report', h);
        else if (r.intact ? rows.length !== 0 : rows.length !== 1 || rows[0]?.problem !== 'ledger_broken') {
          violate('a ledger file is read as a ledger', `intact=${r.intact}, problems: ${rows.map((x) => x.problem).join(', ') || 'none'}`, h);
        }
        continue;
      }
      const at = e.at ?? h.path;
      explained.add(at);
      if (checkedAt.has(at)) continue;
      checkedAt.add(at);
      const rows = hProblems.get(at) ?? [];
      if (rows.length !== 1) violate('a bad file is one problem row', `${rows.length} problem rows at ${at}${rows.length ? `: ${rows.map((x) => x.problem).join(', ')}` : ''}`, h);
      else if (!e.codes.includes(rows[0]?.problem as ProblemCode)) violate('a bad file has the right code', `${rows[0]?.problem} at ${at}, expected ${e.codes.join('|')} (${rows[0]?.detail})`, h);
    }
    for (const p of hostileState.problems) {
      if (!bKeys.has(key(p)) && !explained.has(p.path)) violate('no unexplained problem', `${p.path}: ${p.problem} (${p.detail})`);
    }

    // 4. the marker written only outside never shows.
    const seen = JSON.stringify({
      o: hostileState.orders,
      p: hostileState.problems,
      l: hostileState.ledger,
      r: [...hostileState.roster.entries.values()],
      v: [...hostileState.views.values()],
    });
    if (seen.includes(plan.marker)) violate('never reads outside the channel', 'the outside marker appears in the derived state');

    // 5. the indexes equal the derivation and each other.
    if (incDb && coldDb) {
      const want = stateSnapshot(hostileState);
      const cold = snapshot(coldDb);
      const dc = firstDifference(cold, want);
      if (dc) violate('the index equals channelStateOf', `cold${dc}`);
      const incS = snapshot(incDb);
      const di = firstDifference(incS, cold);
      if (di) violate('an incremental index equals a cold one', `incremental${di}`);
      for (const db of [incDb, coldDb]) {
        const dump = JSON.stringify([snapshot(db), db.prepare('SELECT * FROM files').all()]);
        if (dump.includes(plan.marker)) violate('never reads outside the channel', 'the outside marker appears in the index');
      }
    }
    return finish();
  } finally {
    watchDir = null;
    for (const c of cleanups.reverse()) {
      try {
        await c();
      } catch {
        /* closing a failed indexer */
      }
    }
    if (!opts.keep) fs.rmSync(dir, { recursive: true, force: true });
  }

  function finish(): RoundReport {
    const ms = Date.now() - t0;
    const bound = opts.boundMs ?? 60_000;
    if (ms > bound) violations.push({ seed, invariant: 'a round ends in bounded time', detail: `${ms} ms > ${bound} ms` });
    return { seed, files: plan.hostile.length, codes, ops, violations, crashes, ms };
  }
}

/** Totals over rounds. */
export interface FuzzTotals {
  rounds: number;
  files: number;
  codes: Set<ProblemCode>;
  violations: Violation[];
  crashes: Crash[];
  ops: Map<string, number>;
}

export function emptyTotals(): FuzzTotals {
  return { rounds: 0, files: 0, codes: new Set(), violations: [], crashes: [], ops: new Map() };
}

export function addRound(t: FuzzTotals, r: RoundReport): void {
  t.rounds++;
  t.files += r.files;
  for (const c of r.codes) t.codes.add(c);
  t.violations.push(...r.violations);
  t.crashes.push(...r.crashes);
  for (const [op, n] of Object.entries(r.ops)) t.ops.set(op, (t.ops.get(op) ?? 0) + n);
}
