import { ledgerFactsOf, ledgerFactsOfVerifiedText, ledgerFactsToWire, ledgerRetiredNames, mergeLedgerFacts, type LedgerFacts } from '../../ledger/ledger-facts';
import 'server-only';
/**
 * The channel level as the indexer knows it: the files beside tasks/ (agents/, retirements/,
 * grants/, master.json, ledger files), the roster and retirements they make with the pinned
 * keys, the ledger files' reports (§3.2, remembered per file while its stat
 * identity and the keys it verifies against stay the same), and the context an order folder is
 * passed in. Reads the folder; writes through the store.
 */
import type { Stats } from 'node:fs';
import path from 'node:path';
import { assertChannelRoot, entryFromStat, goneNow, walkChannelLevel } from '../disk/read-channel';
import { MAX_RECORD_BYTES } from '../../ledger/names';
import { DEFAULT_VANISH_GRACE_MS } from '../indexer-options';
import { channelContext, isTrustPath, ledgerReportOf, readEntry, workersOf, knownNames, type ChannelContext, type DeriveOptions, type FileOutcome, type Problem } from '../../ledger/channel';
import type { LedgerFileReport } from '../../ledger/ledger-file';
import type { IndexStore } from '../store/store';
import { statKey, type PassContext } from './order-pass';
import { arrivalsFor, type ArrivalOf } from '../../ledger/clock-steps';
import type { WorkerSetup } from '../workers/worker-pool';
import type { Pipeline } from './pipeline';
import type { StoredAgent } from '../types';

type LedgerOutcome = Extract<FileOutcome, { status: 'ledger' }>;

/** What reading the channel level changed. */
export interface ChannelLevelRead {
  /** A file vanished mid-read and the vanish grace holds the read back: nothing was read or stored (vanish-grace.ts overPass). */
  readonly held: boolean;
  /** The roster's keys, operators or authorities changed: every folder must be derived again. */
  readonly rosterChanged: boolean;
  /** Names whose retirement appeared or went away. */
  readonly retiredChanged: readonly string[];
  /** Signers of the ledger files read (their files' latest arrival may have moved). */
  readonly ledgerSigners: readonly string[];
}

export class ChannelLevel {
  /** Outcomes of the channel-level files (agents/, retirements/, root files): few. */
  private readonly files = new Map<string, FileOutcome>();
  /** Ledger reports by path, valid while the file's stat identity and the keys it verifies against are the same. */
  private readonly ledgerMemo = new Map<string, { stat: string; keys: string; report: LedgerFileReport }>();
  /** What each ledger file's lines say about orders (ledger-facts.ts), as of its last report. */
  private readonly ledgerFactsByPath = new Map<string, LedgerFacts>();
  private readonly pins = new Map<string, string>();
  private pinsVersion = '';
  private rosterSig = '';
  private ctx: ChannelContext | null = null;
  /** Each channel-level file's arrival as last read, kept while its stat identity is the same (only once a clock step was seen). */
  private readonly arrivals = new Map<string, { stat: string; arrival_ms: number }>();

  /**
   * @param store the index database's statements this level writes through
   * @param p the pipeline: the options, the verifier, the index's clock and its steps, the looks' stat identities
   */
  constructor(
    private readonly store: IndexStore,
    private readonly p: Pipeline,
  ) {}

  /** The roster and retirements as last read, or null before the first read. */
  get channel(): ChannelContext | null {
    return this.ctx;
  }

  /** Loads what the database remembers: pinned keys, the roster's signature, the ledger files' reports. */
  load(): void {
    const s = this.store;
    for (const [name, key] of s.pins()) this.pins.set(name, key);
    this.rosterSig = s.readMeta('roster_sig') ?? '';
    for (const r of s.ledgerMemos()) {
      const report: LedgerFileReport = r.intact === 1 ? { entries: r.entries, intact: true, lines: [] } : { entries: r.entries, intact: false, broken_at: r.broken_at ?? 1, reason: r.reason ?? 'chain broken', lines: [] };
      this.ledgerMemo.set(r.path, { stat: r.stat, keys: r.keys, report });
    }
  }

  /** Whether an operator re-pinned a key (`claimboard repin`) since the last read: the roster must be rebuilt. */
  pinsChanged(): boolean {
    return (this.store.readMeta('pins_version') ?? '') !== this.pinsVersion;
  }

  private deriveOptions(): DeriveOptions {
    return { nowMs: this.p.clock(), staleAfterMs: this.p.opts.staleAfterMs, operators: this.p.opts.operators, fleetAgents: this.p.opts.fleetAgents, pins: this.pins, verify: this.p.verify };
  }

  /**
   * Reads the channel-level files and rebuilds the roster, retirements and channel problems;
   * stores the problems, new pins, the roster's signature and the ledger files as files of
   * their signers. The ledger files' reports are readLedgers'.
   *
   * With `mayHold` (a live index that has read the channel level before), a read that finds a
   * file vanished (one the last read found not there now, or one it listed gone by its read: a
   * roster entry or a ledger replaced by Syncthing, caught between its unlink and its rename) is
   * held back by the vanish grace (vanish-grace.ts overPass, key ''): nothing changes, and the
   * channel level is read again when the grace ends.
   */
  read(mayHold = false): ChannelLevelRead {
    const s = this.store;
    const entries: { rel: string; st: Stats }[] = [];
    const unread: Problem[] = [];
    walkChannelLevel(
      this.p.opts.root,
      (rel, st) => entries.push({ rel, st }),
      (rel, why) => unread.push({ path: rel, problem: 'invalid', detail: why }),
    );
    // Gone during the walk (renamed away, unmounted): what it found missing is not the channel's.
    assertChannelRoot(this.p.opts.root);
    const arrival = arrivalsFor(this.p.guard.steps, (rel) => this.arrivals.get(rel));
    const seen = new Map<string, { stat: string; arrival_ms: number }>();
    const read = new Map<string, FileOutcome>();
    let vanished = false;
    for (const { rel, st } of entries) {
      const stat = statKey(st);
      const arrivalMs = arrival ? arrival(rel, stat, st.ctimeMs) : st.ctimeMs;
      seen.set(rel, { stat, arrival_ms: arrivalMs });
      const entry = entryFromStat(this.p.opts.root, rel, st, arrivalMs);
      // A regular file the walk saw whose read failed: unreadable, or gone in between.
      if (entry.type === 'file' && entry.bytes === null && st.size <= MAX_RECORD_BYTES && goneNow(path.join(this.p.opts.root, rel))) vanished = true;
      read.set(rel, readEntry(entry));
    }
    if (this.ctx !== null && mayHold) {
      for (const rel of this.files.keys()) if (!read.has(rel)) vanished = true;
      if (this.p.parts.looks.grace.overPass('', vanished, this.p.opts.vanishGraceMs ?? DEFAULT_VANISH_GRACE_MS)) return { held: true, rosterChanged: false, retiredChanged: [], ledgerSigners: [] };
    }
    this.files.clear();
    for (const [rel, o] of read) this.files.set(rel, o);
    this.arrivals.clear();
    for (const [rel, a] of seen) this.arrivals.set(rel, a);
    const outcomes = [...this.files.values()];
    // Pins change only through the database (`claimboard repin`), never from the folder.
    this.pins.clear();
    for (const [name, key] of s.pins()) this.pins.set(name, key);
    this.pinsVersion = s.readMeta('pins_version') ?? '';
    const prevRetired = new Set(this.ctx?.retirements.map((r) => r.record.agent) ?? []);
    const ch = channelContext(outcomes, this.deriveOptions());
    this.ctx = ch;
    const problems: Problem[] = [...ch.problems, ...unread];
    for (const o of outcomes) {
      if (isTrustPath(o.path)) continue;
      if (o.status === 'problem') problems.push({ path: o.path, problem: o.problem, detail: o.detail });
    }
    // A file directly at tasks/<name> (where a folder belongs) is found by the folder pass.
    const sig = [...ch.roster.entries.values()].map((e) => `${e.name}=${e.public_key ?? ''}`).sort().join(',') + '|' + [...ch.roster.operators].sort().join(',') + '|' + [...ch.roster.authorities].sort().join(',');
    const changed = sig !== this.rosterSig;
    const retired = new Set(ch.retirements.map((r) => r.record.agent));
    const retiredChanged = [...retired].filter((a) => !prevRetired.has(a)).concat([...prevRetired].filter((a) => !retired.has(a)));
    const ledgerSigners: string[] = [];
    s.transaction(() => {
      s.deleteProblemsIn('');
      for (const p of problems) s.addProblem('', { path: p.path, problem: p.problem, detail: p.detail, ...(p.line !== undefined ? { line: p.line } : {}) });
      for (const [name, key] of ch.newPins) {
        if (!this.pins.has(name)) {
          this.pins.set(name, key);
          s.addPin(name, key, this.p.clock());
        }
      }
      if (changed) {
        this.rosterSig = sig;
        s.writeMeta('roster_sig', sig);
      }
      // Ledger files count as files of their signer.
      for (const o of outcomes) {
        if (o.status === 'ledger' && o.signer) {
          s.addLedgerFile(o.path, this.p.parts.looks.channelStatOf(o.path), o.arrivalMs, this.p.clock(), o.signer);
          ledgerSigners.push(o.signer);
        }
      }
      for (const p of s.channelFilePaths()) if (!this.files.has(p)) s.deleteFile(p);
    });
    return { held: false, rosterChanged: changed, retiredChanged, ledgerSigners };
  }

  /** Verifies the ledger files and stores their reports and problems. */
  readLedgers(): void {
    if (!this.ctx) return;
    this.storeLedgerReports([...this.ledgerOutcomes()].map((o) => this.ledgerReport(o)));
  }

  /** readLedgers, one file at a time with other work (a cold index's worker results) in between. */
  async readLedgersYielding(): Promise<void> {
    if (!this.ctx) return;
    const rows: { path: string; report: LedgerFileReport }[] = [];
    for (const o of [...this.ledgerOutcomes()]) {
      rows.push(this.ledgerReport(o));
      this.forgetLedgerText(o);
      await new Promise((r) => setImmediate(r));
    }
    this.storeLedgerReports(rows);
  }

  /**
   * A ledger file reported is not kept in memory (up to 1 MiB each): its outcome stays without
   * text. Only a fresh read (any channel-level change) reports ledger files again, from fresh
   * outcomes; a text of null would otherwise read as "not valid UTF-8".
   */
  private forgetLedgerText(o: LedgerOutcome): void {
    if (o.text !== null) this.files.set(o.path, { ...o, text: null });
  }

  private *ledgerOutcomes(): Iterable<LedgerOutcome> {
    for (const o of this.files.values()) if (o.status === 'ledger') yield o;
  }

  private ledgerReport(o: LedgerOutcome): { path: string; report: LedgerFileReport } {
    const ch = this.ctx;
    if (!ch) throw new Error('internal: channel context not read');
    const lm = this.ledgerMemo;
    const stat = this.p.parts.looks.channelStatOf(o.path);
    let fresh: LedgerFileReport | null = null;
    const report = ledgerReportOf(o, ch.roster, {
      ...this.deriveOptions(),
      ledgerMemo: {
        get: (p, _text, keys) => {
          const v = lm.get(p);
          return v && v.stat === stat && v.keys === keys ? v.report : undefined;
        },
        set: (p, _text, keys, r) => {
          fresh = r;
          lm.set(p, { stat, keys, report: { ...r, lines: [] } });
        },
      },
    });
    const verified: LedgerFileReport | null = fresh;
    if (verified) this.ledgerFactsByPath.set(o.path, ledgerFactsOf([verified], ch.roster));
    else if (o.text !== null) this.ledgerFactsByPath.set(o.path, ledgerFactsOfVerifiedText(o.text, report, ch.roster));
    return { path: o.path, report };
  }

  private storeLedgerReports(rows: readonly { path: string; report: LedgerFileReport }[]): void {
    for (const o of [...this.ledgerOutcomes()]) this.forgetLedgerText(o);
    this.store.replaceLedgerReports(
      rows.map(({ path, report }) => {
        const m = this.ledgerMemo.get(path);
        return { path, report, stat: m?.stat ?? null, keys: m?.keys ?? null };
      }),
    );
  }

  /** What the current ledger files' lines say about orders (DeriveContext.ledger). */
  ledgerFacts(): LedgerFacts {
    return mergeLedgerFacts([...this.ledgerOutcomes()].map((o) => this.ledgerFactsByPath.get(o.path)).filter((f): f is LedgerFacts => f !== undefined));
  }

  /** Every retired name: retirements, and `ferryRetired` (ferry retire releases anywhere; DeriveContext.retired). */
  retiredNow(ferryRetired: ReadonlySet<string>): Set<string> {
    const out = new Set(this.ctx?.retirements.map((r) => r.record.agent) ?? []);
    for (const a of ferryRetired) out.add(a);
    for (const a of ledgerRetiredNames(this.ledgerFacts())) out.add(a);
    return out;
  }

  /** The context an order folder is passed in now, with the remembered signature checks of its files. */
  passContext(remembered: PassContext['remembered'], ferryRetired: ReadonlySet<string>, arrival?: ArrivalOf): PassContext {
    const ch = this.ctx;
    if (!ch) throw new Error('internal: channel context not read');
    return {
      root: this.p.opts.root,
      roster: ch.roster,
      derive: {
        nowMs: this.p.clock(),
        staleAfterMs: this.p.opts.staleAfterMs,
        retired: new Set(ch.retirements.map((r) => r.record.agent)),
        ferryRetired: new Set([...ferryRetired, ...ledgerRetiredNames(this.ledgerFacts())]),
        workers: workersOf(ch.roster, this.retiredNow(ferryRetired)),
        ledger: this.ledgerFacts(),
        known: knownNames(ch.roster),
        persons: ch.roster.operators,
        lastArrivalByAgent: new Map(),
      },
      verify: this.p.verify,
      remembered,
      ...(arrival ? { arrival } : {}),
    };
  }

  /** What a worker thread needs to pass folders as this thread would (plain data), or null before the first read. */
  workerSetup(ferryRetired: ReadonlySet<string>): WorkerSetup | null {
    const ch = this.ctx;
    if (!ch) return null;
    return {
      root: this.p.opts.root,
      agents: [...this.files.values()].filter((o) => isTrustPath(o.path)),
      fleetAgents: [...(this.p.opts.fleetAgents ?? [])],
      pins: [...this.pins],
      operators: [...(this.p.opts.operators ?? [])],
      retired: ch.retirements.map((r) => r.record.agent),
      ferryRetired: [...ferryRetired],
      ledger: ledgerFactsToWire(this.ledgerFacts()),
      nowMs: this.p.clock(),
      staleAfterMs: this.p.opts.staleAfterMs,
      clockSteps: [...this.p.guard.steps],
    };
  }

  /**
   * The agents table's rows: every roster entry with its retirement, what it holds
   * (`holding`), its latest arrival here and its runs' median clock offset. Null before the
   * first read.
   */
  agentRows(holding: ReadonlyMap<string, number>, lastArrival: ReadonlyMap<string, number>, medianOffset: (agent: string) => number | null): StoredAgent[] | null {
    const ch = this.ctx;
    if (!ch) return null;
    const retired = new Set(ch.retirements.map((r) => r.record.agent));
    const changedKeys = new Set(ch.keyChanges.map((k) => k.name));
    const retirementOf = new Map(ch.retirements.map((r) => [r.record.agent, r]));
    return [...ch.roster.entries.values()].map((e) => {
      const ret = retirementOf.get(e.name);
      return {
        capabilities: e.capabilities,
        folder_key: e.folder_key,
        retirement: ret ? { operator: ret.record.operator, reason: ret.record.reason, at: ret.record.at.text, arrival_ms: ret.arrivalMs } : null,
        name: e.name,
        role: e.role,
        is_operator: ch.roster.operators.has(e.name),
        is_authority: ch.roster.authorities.has(e.name),
        retired: retired.has(e.name),
        public_key: e.public_key,
        key_changed: changedKeys.has(e.name),
        holding: holding.get(e.name) ?? 0,
        last_arrival_ms: lastArrival.get(e.name) ?? null,
        clock_offset_ms: medianOffset(e.name),
      };
    });
  }
}
