/**
 * What the signers' ledger lines say about orders that the order folders may no longer show:
 * `ferry channel retire` writes one release file per retirer and order (a second retire by the
 * same machine overwrites it) but one ledger line per release; `ferry channel interrupt` writes
 * one interrupt file per issuer and order but one ledger line per interrupt, and a worker that
 * acts on a kill or pause says so in its own. Counts and names only: no timestamp of a line is read.
 */
import type { LedgerFileReport } from './ledger-file';
import { canonicalName } from './names';
import type { Roster } from './verify';

export interface LedgerFacts {
  /** By order: each name whose claim on it an authority's ledger line says it released as retired, with who. */
  readonly retires: ReadonlyMap<string, readonly { readonly agent: string; readonly by: string }[]>;
  /** By order: how many interrupts each issuer's ledger lines say it issued on it. */
  readonly interrupts: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** By order: each worker's kills and pauses its own ledger lines say it acted on, as `<issuer>:kill|pause`, sorted. */
  readonly acted: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;
}

// O/agent.rs retire: `released {agent}'s claim on {order} (retired)`.
const RETIRE = /^released (.+)'s claim on (.+) \(retired\)$/;
// The issuer's line of `ferry channel interrupt`: `{action} interrupt on {order}`. A worker's own
// `interrupt` lines ("killed {order} on interrupt from {issuer}") say it acted, not that it issued one.
const ISSUED = /^(kill|pause|steer) interrupt on (.+)$/;
// O/agent.rs do_work, the worker's own line when it acts on one: `killed|paused {order} on interrupt from {issuer}`.
const ACTED = /^(killed|paused) (.+) on interrupt from (.+)$/;

/** Adds `value` to the sorted list at map[order][key]. */
function addActed(map: Map<string, Map<string, string[]>>, order: string, key: string, value: string): void {
  const byAgent = map.get(order) ?? new Map<string, string[]>();
  const list = byAgent.get(key) ?? [];
  if (!list.includes(value)) list.push(value);
  list.sort();
  byAgent.set(key, list);
  map.set(order, byAgent);
}

/** The ledger facts of verified lines (a line that does not chain or verify says nothing). */
export function ledgerFactsOf(reports: Iterable<LedgerFileReport>, roster: Roster): LedgerFacts {
  const retires = new Map<string, { agent: string; by: string }[]>();
  const interrupts = new Map<string, Map<string, number>>();
  const acted = new Map<string, Map<string, string[]>>();
  for (const report of reports) {
    for (const l of report.lines) {
      if (!l.ok || l.reference === null) continue;
      const actor = canonicalName(l.actor);
      const order = l.reference;
      const m = l.kind === 'release' ? RETIRE.exec(l.summary) : null;
      if (m && m[1] && m[2] === order && roster.authorities.has(actor) && canonicalName(m[1]) !== actor) {
        const list = retires.get(order) ?? [];
        if (!list.some((r) => r.agent === canonicalName(m[1] ?? '') && r.by === actor)) list.push({ agent: canonicalName(m[1]), by: actor });
        retires.set(order, list);
      } else if (l.kind === 'interrupt' && ISSUED.exec(l.summary)?.[2] === order) {
        const byIssuer = interrupts.get(order) ?? new Map<string, number>();
        byIssuer.set(actor, (byIssuer.get(actor) ?? 0) + 1);
        interrupts.set(order, byIssuer);
      } else if (l.kind === 'interrupt') {
        const a = ACTED.exec(l.summary);
        if (a && a[2] === order && a[3]) addActed(acted, order, actor, `${canonicalName(a[3])}:${a[1] === 'killed' ? 'kill' : 'pause'}`);
      }
    }
  }
  return { retires, interrupts, acted };
}

/** The names the ledger lines say were retired anywhere (DeriveContext.ferryRetired, with the release files'). */
export function ledgerRetiredNames(facts: LedgerFacts): Set<string> {
  return new Set([...facts.retires.values()].flatMap((rs) => rs.map((r) => r.agent)));
}

/**
 * The ledger facts of a file already verified (its report without lines, as an index remembers
 * it): its text's lines up to the first that broke, each read as written. No signature is checked
 * again: the report says which lines chained and verified.
 */
export function ledgerFactsOfVerifiedText(text: string, report: LedgerFileReport, roster: Roster): LedgerFacts {
  const upTo = report.intact ? report.entries : (report.broken_at ?? 1) - 1;
  const lines: LedgerFileReport['lines'][number][] = [];
  for (const [i, raw] of text.split('\n').slice(0, upTo).entries()) {
    try {
      const v = JSON.parse(raw) as { kind?: unknown; actor?: unknown; summary?: unknown; reference?: unknown };
      if (typeof v.kind !== 'string' || typeof v.actor !== 'string' || typeof v.summary !== 'string') continue;
      lines.push({ line: i + 1, kind: v.kind, actor: v.actor, summary: v.summary, reference: typeof v.reference === 'string' ? v.reference : null, ok: true } as LedgerFileReport['lines'][number]);
    } catch {
      continue;
    }
  }
  return ledgerFactsOf([{ ...report, lines }], roster);
}

/** Several files' ledger facts as one. */
export function mergeLedgerFacts(all: Iterable<LedgerFacts>): LedgerFacts {
  const retires = new Map<string, { agent: string; by: string }[]>();
  const interrupts = new Map<string, Map<string, number>>();
  const acted = new Map<string, Map<string, string[]>>();
  for (const f of all) {
    for (const [order, rs] of f.retires) {
      const list = retires.get(order) ?? [];
      for (const r of rs) if (!list.some((x) => x.agent === r.agent && x.by === r.by)) list.push(r);
      retires.set(order, list);
    }
    for (const [order, by] of f.interrupts) {
      const m = interrupts.get(order) ?? new Map<string, number>();
      for (const [issuer, n] of by) m.set(issuer, (m.get(issuer) ?? 0) + n);
      interrupts.set(order, m);
    }
    for (const [order, by] of f.acted) for (const [agent, kinds] of by) for (const k of kinds) addActed(acted, order, agent, k);
  }
  return { retires, interrupts, acted };
}

/** Ledger facts as plain arrays (for a worker thread) and back. */
export type LedgerFactsWire = {
  readonly retires: [string, { agent: string; by: string }[]][];
  readonly interrupts: [string, [string, number][]][];
  readonly acted: [string, [string, string[]][]][];
};
export const ledgerFactsToWire = (f: LedgerFacts): LedgerFactsWire => ({
  retires: [...f.retires].map(([o, rs]) => [o, rs.map((r) => ({ ...r }))]),
  interrupts: [...f.interrupts].map(([o, m]) => [o, [...m]]),
  acted: [...f.acted].map(([o, m]) => [o, [...m].map(([a, ks]) => [a, [...ks]])]),
});
export const ledgerFactsFromWire = (w: LedgerFactsWire): LedgerFacts => ({
  retires: new Map(w.retires),
  interrupts: new Map(w.interrupts.map(([o, m]) => [o, new Map(m)])),
  acted: new Map(w.acted.map(([o, m]) => [o, new Map(m)])),
});

/** The orders whose ledger facts differ between `a` and `b`. */
export function ordersChanged(a: LedgerFacts, b: LedgerFacts): Set<string> {
  const out = new Set<string>();
  const key = (f: LedgerFacts, o: string) => JSON.stringify([f.retires.get(o) ?? [], [...(f.interrupts.get(o) ?? [])].sort(), [...(f.acted.get(o) ?? [])].sort()]);
  const orders = (f: LedgerFacts) => [...f.retires.keys(), ...f.interrupts.keys(), ...f.acted.keys()];
  for (const o of new Set([...orders(a), ...orders(b)])) if (key(a, o) !== key(b, o)) out.add(o);
  return out;
}
