/**
 * Decision targets (docs/channel-format.md): what an operator's reopen or ack names, and what a
 * card's `target` and `late_target` are. The one place their text is built and read:
 *
 * - `result:<revision>`: the result at a revision (a done order)
 * - `review:<revision>`: the accepting review of a revision (an accepted order)
 * - `giveup:<digest>`: a give-up, by the SHA-256 of its file's bytes
 * - `late:<revision>:<agents>:<open | held:<holder> | twice:<holder>>`: late results (a claimboard
 *   extension): the agents whose results at that revision are late, sorted and comma-joined, and
 *   how ferry reads the order: open (it hands it out again), held (it counts the late result) or
 *   twice (the holder's own result at that revision too: ferry counts the holder's)
 *
 * A record may name several targets, separated by spaces (one ack and one reopen file per
 * operator and order: a new decision carries the ones still in force). Compared case and spacing
 * aside. Pure.
 */

/** One decision target, read. */
export type DecisionTarget =
  | { readonly kind: 'result' | 'review'; readonly revision: number }
  | { readonly kind: 'giveup'; readonly digest: string }
  | {
      readonly kind: 'late';
      readonly revision: number;
      /** The agents whose results are late (built sorted). */
      readonly agents: readonly string[];
      /** Who holds the order as ferry reads it; null: open. */
      readonly holder: string | null;
      /** The holder has its own result at that revision too (never with no holder). */
      readonly twice: boolean;
    };

/**
 * The text of a target. A late target's agents are sorted, so the same late results make the same
 * target; a new late result, a worker claiming the order, or the holder's own result arriving
 * makes a new one, which an earlier ack does not name.
 */
export function decisionTarget(t: DecisionTarget): string {
  switch (t.kind) {
    case 'result':
    case 'review':
      return `${t.kind}:${t.revision}`;
    case 'giveup':
      return `giveup:${t.digest}`;
    case 'late':
      return `late:${t.revision}:${[...t.agents].sort().join(',')}:${t.holder === null ? 'open' : `${t.twice ? 'twice' : 'held'}:${t.holder}`}`;
  }
}

const REVISION = /^\d+$/;
/** A name or a digest inside a target: no separator of targets or of their parts. */
const PART = /^[^\s:,]+$/;

/** One target's text read (trimmed, lowercased first), or null for a form none of the above has. */
export function parseDecisionTarget(text: string): DecisionTarget | null {
  const [kind = '', ...rest] = normTarget(text).split(':');
  switch (kind) {
    case 'result':
    case 'review': {
      const [rev, ...more] = rest;
      return rev !== undefined && REVISION.test(rev) && more.length === 0 ? { kind, revision: Number(rev) } : null;
    }
    case 'giveup': {
      const [digest, ...more] = rest;
      return digest !== undefined && PART.test(digest) && more.length === 0 ? { kind, digest } : null;
    }
    case 'late': {
      const [rev, agentList, how, holder, ...more] = rest;
      if (rev === undefined || !REVISION.test(rev) || agentList === undefined || more.length > 0) return null;
      const agents = agentList.split(',');
      if (!agents.every((a) => PART.test(a))) return null;
      const revision = Number(rev);
      if (how === 'open' && holder === undefined) return { kind, revision, agents, holder: null, twice: false };
      if ((how === 'held' || how === 'twice') && holder !== undefined && PART.test(holder)) return { kind, revision, agents, holder, twice: how === 'twice' };
      return null;
    }
    default:
      return null;
  }
}

const normTarget = (t: string) => t.trim().toLowerCase();

/** A decision record's target as compared: trimmed, lowercased, its targets separated by one space. */
export function targetList(recordTarget: string): string {
  return normTarget(recordTarget).split(/\s+/).join(' ');
}

/**
 * Whether a decision record's target (an ack's, a reopen's) names `target`, among the ones it
 * names (lib/ledger/actions.ts ackTargetOf, reopenTargetOf). Case and spacing aside.
 */
export function namesTarget(recordTarget: string, target: string): boolean {
  return targetList(recordTarget).split(' ').includes(normTarget(target));
}

/** `extra` after `first` (a target list as the operator's file keeps it), each target once, space-separated. */
export function joinTargets(first: string | undefined, extra: readonly (string | null | undefined)[]): string {
  const out = first ? first.split(' ') : [];
  for (const t of extra) if (t && !out.includes(t.toLowerCase())) out.push(t.toLowerCase());
  return out.join(' ');
}
