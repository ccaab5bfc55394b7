import 'server-only';
/**
 * One order folder, from disk to its card: list `tasks/<dir>/`, read each
 * file (lstat, capped read), verify (remembered outcomes first), assemble and derive. Runs in
 * the indexer's main thread for incremental updates and in worker threads for a cold index;
 * its result is plain data.
 */
import { assembleOrder, readEntry, writerOf, type FileOutcome, type OrderView } from '../../ledger/channel';
import { deriveOrder, type Card, type DeriveContext } from '../../ledger/derive';
import { orderHolds, runDuration, type Hold } from '../../ledger/holds';
import { retireReleases } from '../../ledger/actions';
import type { Ed25519Verify, Roster, SignatureMemo } from '../../ledger/verify';
import { entryFromStat, goneNow, listOrderFolder } from '../disk/read-channel';
import { MAX_RECORD_BYTES } from '../../ledger/names';
import type { Stats } from 'node:fs';
import type { ArrivalOf } from '../../ledger/clock-steps';

/** A stat identity: files whose identity did not change are not read again. */
export const statKey = (st: Stats): string =>
  `${st.isSymbolicLink() ? 'l' : st.isDirectory() ? 'd' : st.isFile() ? 'f' : 'o'}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;

/**
 * A 53-bit fingerprint of a folder's listing: every (path, stat identity) pair, in any order.
 * Equal listings give equal numbers; a different listing gives a different number except with
 * probability about 2^-53 (cyrb53 over the sorted pairs). The indexer remembers one per folder
 * instead of every entry's identity.
 */
export function listingFingerprint(pairs: Iterable<readonly [string, string]>): number {
  const lines = [...pairs].map(([p, k]) => `${p}\u0000${k}`).sort();
  return cyrb53(lines.join('\n'));
}

/** cyrb53 (public domain, bryc): a fast, well-mixed 53-bit string hash. Not cryptographic. */
export function cyrb53(s: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** A file of the folder as the index stores it. */
export interface FileRow {
  readonly path: string;
  /** The folder under tasks/ it belongs to. */
  readonly order_dir: string | null;
  readonly stat: string;
  readonly type: string;
  readonly arrival_ms: number;
  readonly kind: string | null;
  readonly status: string;
  readonly problem: string | null;
  /** Who wrote it, for "files of h", or null. */
  readonly writer: string | null;
  readonly sig_key: string | null;
  readonly sig_ok: number | null;
}

/** A heartbeat seen, for the runs table. */
export interface BeatSeen {
  readonly order_id: string;
  readonly agent: string;
  readonly run: string;
  readonly pid: number;
  readonly at: string;
  readonly at_ms: number;
  readonly arrival_ms: number;
}

/** What one pass over one order folder found. */
export interface OrderPassResult {
  /** The directory name under tasks/. */
  readonly dir: string;
  /** Every entry under tasks/<dir>, the directory itself first. */
  readonly files: readonly FileRow[];
  /** The order's card before channel-wide facts (stale reason, dependencies) are applied, or null. */
  readonly card: Card | null;
  readonly problems: readonly { path: string; problem: string; detail: string; line?: number; order_id?: string }[];
  /** One per claim: the hold as the fleet history lists it, its run's duration (runDuration), whether a retirement of its agent releases the order now (retireReleases). */
  readonly holds: readonly { readonly hold: Hold; readonly run_ms: number | null; readonly retire: boolean }[];
  readonly beats: readonly BeatSeen[];
  /** Local time (ms) at which this card may change with no file changing, or null. */
  readonly next_ms: number | null;
  /**
   * Signatures this pass took as valid without checking them (PassContext.deferVerify): the card
   * is shown unverified until a checking pass confirms them. 0 when every signature was checked.
   */
  readonly deferred: number;
  /**
   * A file of the folder vanished while this pass read it (listed, then gone by its lstat or its
   * read): Syncthing's replace (unlink, then rename) caught between its two steps. The result
   * lacks that file; the pipeline believes what it stored a moment longer (the vanish grace).
   */
  readonly vanished?: true;
}

/** Everything a pass needs from the channel. */
export interface PassContext {
  readonly root: string;
  readonly roster: Roster;
  readonly derive: DeriveContext;
  readonly verify: Ed25519Verify;
  /** Remembered signature outcomes by path: valid only when the stat identity still matches. */
  readonly remembered?: ReadonlyMap<string, { readonly stat: string; readonly key: string; readonly ok: boolean }>;
  /** A file's arrival on the index's clock (steady-clock.ts); absent: its ctime (no clock step seen). */
  readonly arrival?: ArrivalOf;
  /**
   * Take each signature as valid without checking it, handing it here to be checked later
   * (`folder` is the directory under tasks/), and count it in the result's `deferred`: a cold
   * index's first look (cold-pass.ts: the board before the cryptography). One it
   * returns false for is verified now. Nothing taken unchecked is remembered as checked: those
   * files' rows carry no signature outcome.
   */
  readonly defer?: (folder: string, publicKeyHex: string, message: string, signatureHex: string) => boolean;
}

/** The writer of a file for "files of h", or null. */
function fileWriter(o: FileOutcome): string | null {
  return o.status === 'record' ? writerOf(o.record) : null;
}

/**
 * Reads and derives one order folder. Never throws for folder content; a folder that vanished
 * gives an empty result (no files, no card).
 */
export function passOrder(dir: string, ctx: PassContext): OrderPassResult & { readonly view: OrderView | null } {
  const relDir = `tasks/${dir}`;
  const files: FileRow[] = [];
  const listing = listOrderFolder(ctx.root, dir);
  if (!listing) return { dir, files, card: null, problems: [], holds: [], beats: [], next_ms: null, deferred: 0, view: null };
  const dirSt = listing.self;
  const arrivalOf = (rel: string, key: string, st: Stats) => (ctx.arrival ? ctx.arrival(rel, key, st.ctimeMs) : st.ctimeMs);
  const dirKey = statKey(dirSt);
  files.push({ path: relDir, order_dir: dir, stat: dirKey, type: dirSt.isDirectory() ? 'dir' : 'file', arrival_ms: arrivalOf(relDir, dirKey, dirSt), kind: null, status: 'dir', problem: null, writer: null, sig_key: null, sig_ok: null });
  if (!dirSt.isDirectory()) {
    // A file or symlink where an order directory belongs: a problem, never followed.
    const problem = dirSt.isSymbolicLink()
      ? { path: relDir, problem: 'symlink', detail: 'a symlink where an order directory belongs; not followed' }
      : { path: relDir, problem: 'invalid', detail: 'a file where an order directory belongs' };
    return { dir, files, card: null, problems: [problem], holds: [], beats: [], next_ms: null, deferred: 0, view: null };
  }
  if (listing.refused !== undefined) {
    return { dir, files, card: null, problems: [{ path: relDir, problem: 'invalid', detail: listing.refused }], holds: [], beats: [], next_ms: null, deferred: 0, view: null };
  }
  const outcomes: FileOutcome[] = [];
  const stats = new Map<string, string>();
  let vanished = listing.vanished === true;
  for (const { rel, abs, st } of listing.entries) {
    const key = statKey(st);
    stats.set(rel, key);
    const entry = entryFromStat(ctx.root, rel, st, arrivalOf(rel, key, st), abs);
    // A regular file lstat saw but whose read failed: unreadable, or gone in between.
    if (entry.type === 'file' && entry.bytes === null && st.size <= MAX_RECORD_BYTES && goneNow(abs)) vanished = true;
    outcomes.push(readEntry(entry));
  }
  const seen = new Map<string, { key: string; ok: boolean }>();
  let deferred = 0;
  const memo: SignatureMemo = {
    get: (p, key) => {
      const r = ctx.remembered?.get(p);
      return r && r.key === key && r.stat === stats.get(p) ? r.ok : undefined;
    },
    // A signature taken unchecked is not an outcome to remember.
    set: (p, key, ok) => void (ctx.defer ? undefined : seen.set(p, { key, ok })),
  };
  const defer = ctx.defer;
  const verify: Ed25519Verify = defer ? (k, m, s) => (defer(dir, k, m, s) ? (deferred++, true) : ctx.verify(k, m, s)) : ctx.verify;
  const assembled = assembleOrder(dir, outcomes, ctx.roster, { verify, memo });
  const sigOf = (p: string) => seen.get(p) ?? (() => {
    const r = ctx.remembered?.get(p);
    return r && r.stat === stats.get(p) ? { key: r.key, ok: r.ok } : undefined;
  })();
  const verifiedByPath = new Map<string, FileOutcome>();
  if ('order' in assembled) for (const f of assembled.order.files) verifiedByPath.set(f.path, f);
  for (const o of outcomes) {
    const v = verifiedByPath.get(o.path) ?? o;
    const sig = sigOf(o.path);
    files.push({
      path: o.path,
      order_dir: dir,
      stat: stats.get(o.path) ?? '',
      type: 'file',
      arrival_ms: o.arrivalMs,
      kind: v.status === 'record' ? v.record.kind : v.status === 'problem' ? v.kind : null,
      status: v.status,
      problem: v.status === 'problem' ? v.problem : null,
      writer: 'order' in assembled ? fileWriter(v) : null,
      sig_key: sig?.key ?? null,
      sig_ok: sig ? (sig.ok ? 1 : 0) : null,
    });
  }
  if ('invalid' in assembled) {
    return { dir, files, card: null, problems: [assembled.invalid], holds: [], beats: [], next_ms: null, deferred, view: null, ...(vanished ? { vanished: true as const } : {}) };
  }
  const a = assembled.order;
  const card = deriveOrder(a.folder, ctx.derive, () => true);
  const view: OrderView = { card, folder: a.folder, files: a.files, interrupts: a.interrupts, recommendations: a.recommendations };
  let next: number | null = null;
  for (const o of outcomes) {
    const t = o.arrivalMs + ctx.derive.staleAfterMs;
    if (t > ctx.derive.nowMs && (next === null || t < next)) next = t;
  }
  const beats: BeatSeen[] = a.folder.heartbeats.map((h) => ({
    order_id: a.folder.order.record.id,
    agent: h.record.agent,
    run: h.record.run,
    pid: h.record.pid,
    at: h.record.at.text,
    at_ms: h.record.at.epochMs,
    arrival_ms: h.arrivalMs,
  }));
  return { dir, files, card, problems: a.problems, holds: holdsOf(view, card), beats, next_ms: next, deferred, view, ...(vanished ? { vanished: true as const } : {}) };
}

/** The order's holds, each with its run's duration and the retire rule for its agent (orderHolds lists the folder's claims in order). */
function holdsOf(view: OrderView, card: Card): OrderPassResult['holds'] {
  const claims = view.folder.claims;
  return orderHolds(view, card).map((hold, i) => ({
    hold,
    run_ms: runDuration(view, hold.agent, (claims[i] as (typeof claims)[number]).record.claimed_at),
    retire: retireReleases(view.folder, hold.agent),
  }));
}
