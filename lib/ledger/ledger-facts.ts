/**
 * What the signers' ledger lines say about orders that the order folders may no longer show:
 * `ferry channel retire` writes one release file per retirer and order (a second retire by the
 * same machine overwrites it) but one ledger line per release; `ferry channel interrupt` writes
 * one interrupt file per issuer and order but one ledger line per interrupt. Counts and names
 * only: no timestamp of a line is read.
 */
import type { LedgerFileReport } from './ledger-file';
import { canonicalName } from './names';
import type { Roster } from './verify';

export interface LedgerFacts {
  /** By order: each name whose claim on it an authority's ledger line says it released as retired, with who. */
  readonly retires: ReadonlyMap<string, readonly { readonly agent: string; readonly by: string }[]>;
  /** By order: how many interrupts each issuer's ledger lines say it issued on it. */
  readonly interrupts: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

// O/agent.rs retire: `released {agent}'s claim on {order} (retired)`.
const RETIRE = /^released (.+)'s claim on (.+) \(retired\)$/;

/** The ledger facts of verified lines (a line that does not chain or verify says nothing). */
export function ledgerFactsOf(reports: Iterable<LedgerFileReport>, roster: Roster): LedgerFacts {
  const retires = new Map<string, { agent: string; by: string }[]>();
  const interrupts = new Map<string, Map<string, number>>();
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
      } else if (l.kind === 'interrupt') {
        const byIssuer = interrupts.get(order) ?? new Map<string, number>();
        byIssuer.set(actor, (byIssuer.get(actor) ?? 0) + 1);
        interrupts.set(order, byIssuer);
      }
    }
  }
  return { retires, interrupts };
}

/** The names the ledger lines say were retired anywhere (DeriveContext.ferryRetired, with the release files'). */
export function ledgerRetiredNames(facts: LedgerFacts): Set<string> {
  return new Set([...facts.retires.values()].flatMap((rs) => rs.map((r) => r.agent)));
}
