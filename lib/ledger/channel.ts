/**
 * A whole channel, from its files to its board.
 *
 * Pure: the caller lists the folder (lib/index/disk/read-channel.ts does it on a real disk) and
 * passes every entry with its bytes and its arrival on this machine's clock.
 *
 * One file read into its outcome (classification, the §2 problem rows) is entry.ts; one order's
 * folder verified and assembled is assemble-order.ts; here, the roster and the assembly of one
 * channel, in the order the reading happens.
 */
import { ledgerFactsOf, ledgerRetiredNames } from './ledger-facts';
import { canonicalName } from './names';
import { isRetireRelease } from './retire-release';
import { readEntry, type ChannelEntry, type FileOutcome, type Problem } from './entry';
import {
  type LedgerRecord,
  type AgentRecord,
  type RetirementRecord,
  type MasterRecord,
  type GrantRecord,
} from './records';
import {
  buildRoster,
  verifyRecord,
  withMasterAndGrants,
  type Ed25519Verify,
  type Roster,
  type KeyChange,
  type SignatureMemo,
} from './verify';
import { DEFAULT_STALE_AFTER_MS } from './stale-after';
import { readLedgerFile, type LedgerFileReport } from './ledger-file';
import {
  deriveOrder,
  resolveDependencies,
  type Arrived,
  type Card,
  type DeriveContext,
  type OrderFolder,
  type OrderState,
} from './derive';
import { assembleOrder, type AssembledOrder } from './assemble-order';

export { readEntry, type ChannelEntry, type ProblemCode, type Problem, type FileOutcome } from './entry';
export { assembleOrder, writerOf, type AssembledOrder } from './assemble-order';

/** Options of a derivation. */
export interface DeriveOptions {
  /** This machine's clock, ms. */
  readonly nowMs: number;
  /** `stale_after`, ms (default 300 000: ferryman's 30 s x 10). */
  readonly staleAfterMs?: number;
  /** Pinned keys by canonical name (trust on first use); absent: the folder's keys are pinned now. */
  readonly pins?: ReadonlyMap<string, string>;
  /** Configured operators (`CLAIMBOARD_OPERATORS`); absent or empty: roles operator/master. */
  readonly operators?: readonly string[];
  /** The Ed25519 primitive. */
  readonly verify: Ed25519Verify;
  /**
   * This machine's ferry fleet roster (`$FERRYMAN_STATE_DIR/fleet/agents/*.json`), which ferry on
   * this machine adds for names the channel's agents/ lacks (C/lib.rs `read_agent_roster`).
   */
  readonly fleetAgents?: readonly { readonly path: string; readonly record: AgentRecord }[];
  /** Remembered signature outcomes of unchanged files (an index passes one; the CLI does not). */
  readonly memo?: SignatureMemo;
  /**
   * Remembered ledger file reports: a report depends only on the file's text and the keys it
   * verifies against (`keys`: the signer's key, or every key for the legacy file).
   */
  readonly ledgerMemo?: {
    get(path: string, text: string, keys: string): LedgerFileReport | undefined;
    set(path: string, text: string, keys: string, report: LedgerFileReport): void;
  };
}

/** Everything valid in one order's folder plus its files, for the order page. */
export interface OrderView {
  readonly card: Card;
  readonly folder: OrderFolder;
  /** Every file of the folder that claimboard reads, with its outcome. */
  readonly files: readonly FileOutcome[];
  readonly interrupts: readonly Arrived<Extract<LedgerRecord, { kind: 'interrupt' }>>[];
  readonly recommendations: readonly Arrived<Extract<LedgerRecord, { kind: 'recommendation' }>>[];
}

/** The derived channel. */
export interface ChannelState {
  /** Cards sorted by order id. */
  readonly orders: readonly Card[];
  readonly problems: readonly Problem[];
  readonly ledger: Readonly<Record<string, LedgerFileReport>>;
  readonly roster: Roster;
  readonly keyChanges: readonly KeyChange[];
  readonly newPins: ReadonlyMap<string, string>;
  readonly retirements: readonly Arrived<RetirementRecord>[];
  readonly views: ReadonlyMap<string, OrderView>;
  readonly lastArrivalByAgent: ReadonlyMap<string, number>;
  /**
   * The next local time (ms) at which some card may change with no file changing: the earliest
   * `arrival + stale_after` still in the future, or null.
   */
  readonly nextChangeMs: number | null;
}

/** The default `stale_after` (300 000 ms), defined in stale-after.ts (which the browser imports alone). */
export { DEFAULT_STALE_AFTER_MS };

/** Channel-level paths whose files make the roster and its authorities (agents, retirements, master, grants). */
export function isTrustPath(path: string): boolean {
  return path.startsWith('agents/') || path.startsWith('retirements/') || path.startsWith('grants/') || path === 'master.json';
}

/**
 * Derives the whole channel: reads every entry, builds the roster, verifies
 * every signed record, reads the ledger files, and derives every order's card. Never throws on
 * folder content: every bad file becomes a Problem and the rest is derived as if it were absent.
 */
export function deriveChannel(entries: readonly ChannelEntry[], options: DeriveOptions): ChannelState {
  return deriveOutcomes(entries.map(readEntry), entries, options);
}

/** The channel-level part of a derivation: roster, retirements and their problems. */
export interface ChannelContext {
  readonly roster: Roster;
  readonly keyChanges: readonly KeyChange[];
  readonly newPins: ReadonlyMap<string, string>;
  /** Valid retirements. */
  readonly retirements: readonly Arrived<RetirementRecord>[];
  /** Problems of `agents/` and `retirements/` files and key changes. */
  readonly problems: readonly Problem[];
}

/**
 * Builds the roster from `agents/` outcomes and verifies `retirements/`.
 * `outcomes` may contain anything; only agent and retirement files are used.
 */
export function channelContext(outcomes: readonly FileOutcome[], options: DeriveOptions): ChannelContext {
  const agents: { path: string; record: AgentRecord }[] = [];
  const problems: Problem[] = [];
  let master: { path: string; record: MasterRecord } | null = null;
  const grants: { path: string; record: GrantRecord }[] = [];
  for (const o of outcomes) {
    if (o.status === 'record' && o.record.kind === 'agent') agents.push({ path: o.path, record: o.record });
    else if (o.status === 'record' && o.record.kind === 'master') master = { path: o.path, record: o.record };
    else if (o.status === 'record' && o.record.kind === 'grant') grants.push({ path: o.path, record: o.record });
    else if (o.status === 'problem' && o.orderId === null && isTrustPath(o.path)) {
      problems.push({ path: o.path, problem: o.problem, detail: o.detail });
    }
  }
  // The fleet roster fills in names the channel lacks, as ferry on this machine does.
  const inChannel = new Set(agents.map((a) => a.record.name));
  for (const f of options.fleetAgents ?? []) if (!inChannel.has(f.record.name)) agents.push(f);
  const built = buildRoster(agents, { pins: options.pins, operators: options.operators });
  const { keyChanges, newPins } = built;
  const configured = (options.operators ?? []).some((n) => n.trim().length > 0);
  const trust = withMasterAndGrants(built.roster, master, grants, options.verify, configured);
  const roster = trust.roster;
  for (const p of trust.problems) problems.push(p);
  const retirements: Arrived<RetirementRecord>[] = [];
  for (const o of outcomes) {
    if (o.status !== 'record' || o.record.kind !== 'retirement') continue;
    const bad = verifyRecord(o.record, roster, options.verify, options.memo ? { memo: options.memo, path: o.path } : undefined);
    if (bad) problems.push({ path: o.path, problem: bad.problem, detail: bad.detail });
    else retirements.push({ record: o.record, arrivalMs: o.arrivalMs, path: o.path });
  }
  for (const k of keyChanges) {
    problems.push({
      path: k.path,
      problem: 'key_changed',
      detail: `${k.name}'s key in the folder (${k.folder.slice(0, 12)}…) differs from the pinned key (${k.pinned.slice(0, 12)}…); records verify against the pinned key until an operator re-pins it`,
    });
  }
  return { roster, keyChanges, newPins, retirements, problems };
}

/** One ledger file's report, remembered through `options.ledgerMemo` when given. */
export function ledgerReportOf(o: Extract<FileOutcome, { status: 'ledger' }>, roster: Roster, options: DeriveOptions): LedgerFileReport {
  if (o.text === null) return { entries: 0, intact: false, broken_at: 1, reason: 'not valid UTF-8', lines: [] };
  const keys =
    o.signer !== null
      ? (roster.entries.get(o.signer)?.public_key ?? '')
      : [...roster.entries.values()].map((e) => `${e.name}=${e.public_key ?? ''}`).join(',');
  const known = options.ledgerMemo?.get(o.path, o.text, keys);
  const report = known ?? readLedgerFile(o.text, o.signer, roster, options.verify);
  if (!known) options.ledgerMemo?.set(o.path, o.text, keys, report);
  return report;
}

/** The order directories named by a set of entries: every `tasks/<id>` directory, and any id files sit under. */
export function orderDirsOf(entries: readonly { readonly path: string; readonly type: ChannelEntry['type'] }[]): string[] {
  const orderDirs = new Set<string>();
  for (const e of entries) {
    const parts = e.path.split('/');
    if (parts[0] === 'tasks' && parts.length >= 2 && !(parts[1] ?? '').startsWith('.')) {
      if (parts.length >= 3 || e.type === 'dir') orderDirs.add(parts[1] ?? '');
    }
  }
  return [...orderDirs].sort();
}

/**
 * The same as deriveChannel from outcomes already read. `dirs` lists at least every
 * `tasks/<id>` directory entry; passing all entries is fine.
 */
export function deriveOutcomes(
  outcomes: readonly FileOutcome[],
  dirs: readonly { readonly path: string; readonly type: ChannelEntry['type']; readonly unread?: string }[],
  options: DeriveOptions,
): ChannelState {
  const ctxChannel = channelContext(outcomes, options);
  const { roster } = ctxChannel;
  const problems: Problem[] = [...ctxChannel.problems];
  // Folders whose entries were not read (not listable, too many entries): each is one problem row.
  const unread = new Map<string, string>();
  for (const d of dirs) if (d.unread !== undefined) unread.set(d.path, d.unread);
  for (const [p, why] of unread) if (!/^tasks\/[^/]+$/.test(p)) problems.push({ path: p, problem: 'invalid', detail: why });
  const ledger: Record<string, LedgerFileReport> = {};
  const lastArrival = new Map<string, number>();
  const bump = (agent: string, ms: number) => {
    if ((lastArrival.get(agent) ?? -Infinity) < ms) lastArrival.set(agent, ms);
  };

  const byOrder = new Map<string, FileOutcome[]>();
  for (const o of outcomes) {
    if (o.status === 'skip') continue;
    if (o.orderId !== null) {
      const list = byOrder.get(o.orderId);
      if (list) list.push(o);
      else byOrder.set(o.orderId, [o]);
      continue;
    }
    if (isTrustPath(o.path)) continue; // in ctxChannel
    if (o.status === 'problem') problems.push({ path: o.path, problem: o.problem, detail: o.detail });
    else if (o.status === 'ledger') {
      if (o.signer) bump(o.signer, o.arrivalMs);
      const report = ledgerReportOf(o, roster, options);
      ledger[o.path] = report;
      if (!report.intact) problems.push({ path: o.path, problem: 'ledger_broken', detail: report.reason ?? 'chain broken', line: report.broken_at });
    }
  }

  const folders = new Map<string, AssembledOrder>();
  for (const dir of byCanonicalDir(orderDirsOf(dirs))) {
    const why = unread.get(`tasks/${dir}`);
    if (why !== undefined) {
      problems.push({ path: `tasks/${dir}`, problem: 'invalid', detail: why });
      continue;
    }
    const a = assembleOrder(dir, byOrder.get(dir) ?? [], roster, options);
    if ('invalid' in a) {
      problems.push(a.invalid);
      continue;
    }
    const held = folders.get(a.order.folder.order.record.id);
    if (held) {
      problems.push(duplicateOrderDir(dir, held.folder.order.path, a.order.folder.order.record.id));
      continue;
    }
    problems.push(...a.order.problems);
    for (const [w, ms] of a.order.writers) bump(w, ms);
    folders.set(a.order.folder.order.record.id, a.order);
  }

  const staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  let nextChangeMs: number | null = null;
  for (const o of outcomes) {
    const t = o.arrivalMs + staleAfterMs;
    if (o.status !== 'skip' && t > options.nowMs && (nextChangeMs === null || t < nextChangeMs)) nextChangeMs = t;
  }
  const retired = new Set(ctxChannel.retirements.map((r) => r.record.agent));
  const ledgerFacts = ledgerFactsOf(Object.values(ledger), roster);
  const ferryRetired = new Set([...ferryRetiredNames([...folders.values()].map((f) => f.folder)), ...ledgerRetiredNames(ledgerFacts)]);
  const ctx: DeriveContext = {
    ledger: ledgerFacts,
    nowMs: options.nowMs,
    staleAfterMs,
    retired,
    ferryRetired,
    workers: workersOf(roster, new Set([...retired, ...ferryRetired])),
    known: knownNames(roster),
    persons: roster.operators,
    lastArrivalByAgent: lastArrival,
  };
  const isOrder = (id: string) => folders.has(id);
  const first = new Map<string, Card>();
  for (const [id, f] of folders) first.set(id, deriveOrder(f.folder, ctx, isOrder));
  const stateOf = (id: string): OrderState | undefined => first.get(id)?.state;
  const views = new Map<string, OrderView>();
  const cards: Card[] = [];
  for (const [id, card] of first) {
    const final = resolveDependencies(card, stateOf);
    cards.push(final);
    const f = folders.get(id);
    if (f) views.set(id, { card: final, folder: f.folder, files: f.files, interrupts: f.interrupts, recommendations: f.recommendations });
  }
  cards.sort((a, b) => (a.order_id < b.order_id ? -1 : a.order_id > b.order_id ? 1 : 0));
  problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0)));
  return {
    orders: cards,
    problems,
    ledger,
    roster,
    keyChanges: ctxChannel.keyChanges,
    newPins: ctxChannel.newPins,
    retirements: ctxChannel.retirements,
    views,
    lastArrivalByAgent: lastArrival,
    nextChangeMs,
  };
}

/** The agents a `ferry channel retire` release names in any folder (reason `retired`, by someone else): DeriveContext.ferryRetired. */
export function ferryRetiredNames(folders: readonly OrderFolder[]): Set<string> {
  const out = new Set<string>();
  for (const f of folders) for (const r of f.releases) if (isRetireRelease(r.record)) out.add(r.record.released);
  return out;
}

/** Every name the roster knows, of any role, and its master (DeriveContext.known). */
export function knownNames(roster: Roster): Set<string> {
  return new Set([...roster.entries.keys(), ...(roster.master ? [roster.master] : [])]);
}

/** The roster's workers (role `worker`) that are not retired (DeriveContext.workers). */
export function workersOf(roster: Roster, retired: ReadonlySet<string>): Set<string> {
  return new Set([...roster.entries.values()].filter((e) => e.role === 'worker' && !retired.has(e.name)).map((e) => e.name));
}

/**
 * Order directories in the order their claims on an id are settled: directories whose names
 * fold to the same id (`tasks/T1`, `tasks/t1`: names compare case-insensitively)
 * are adjacent, the one already written in canonical form first, then by name. The first with
 * a readable order keeps the id (as the roster keeps the lowercase entry, §5).
 */
export function byCanonicalDir(dirs: readonly string[]): string[] {
  const keys = new Map(dirs.map((d) => [d, canonicalName(d)]));
  const key = (d: string) => keys.get(d) as string;
  return [...dirs].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka !== kb) return ka < kb ? -1 : 1;
    const ca = a === ka ? 0 : 1;
    const cb = b === kb ? 0 : 1;
    if (ca !== cb) return ca - cb;
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/** The one `invalid` problem of a second directory for an order id (its files are not read). */
export function duplicateOrderDir(dir: string, keptOrderPath: string, id: string): Problem {
  return {
    path: `tasks/${dir}`,
    problem: 'invalid',
    detail: `another directory (${keptOrderPath.slice(0, keptOrderPath.lastIndexOf('/'))}) holds order ${id}: names compare case-insensitively; its files are not read`,
  };
}
