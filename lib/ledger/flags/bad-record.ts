import type { FolderProblem, OrderFolder, OrderState } from '../card';
import type { FlagRule } from './rule';

/** Bad record: the order's folder has a problem row other than a conflict copy. */
export const badRecord: FlagRule = {
  flag: 'bad_record',
  label: 'bad record',
  glossary: 'a file in the order\'s folder is unsigned, forged, unreadable or misplaced',
  rule: 'raised while the order\'s folder has a problem row (unsigned, unknown signer, bad signature, unreadable, misnamed) other than a conflict copy',
  ferry: 'C/lib.rs `read_task` and the `verify_*` functions (what ferry drops, refuses or reads all the same)',
  clocks: 'none',
  raise: (f) => (f.folder.problemCount > 0 ? { text: badRecordText(f.folder, f.holder, f.state) } : null),
};

/** The words of `bad_record`: what the bad files mean for the fleet, the first two of them. */
export function badRecordText(folder: OrderFolder, holder: string | null, state: OrderState): string {
  const lines: string[] = [];
  // What decides the order first: the order itself, then results, then the rest (by path).
  const rank = (p: FolderProblem) => (p.kind === 'order' ? 0 : p.kind === 'result' ? 1 : 2);
  for (const p of [...folder.problems].sort((a, b) => rank(a) - rank(b))) {
    if (p.problem === 'sync_conflict') continue;
    const name = p.path.slice(p.path.lastIndexOf('/') + 1);
    const sig = p.problem === 'unsigned' || p.problem === 'unknown_signer' || p.problem === 'invalid_signature';
    const why =
      p.problem === 'unsigned' ? 'is unsigned' : p.problem === 'unknown_signer' ? `is signed by ${p.signer ?? 'a name'} with a key the roster does not hold` : 'has a signature that does not verify';
    if (p.kind === 'order' && sig) {
      lines.push(`order.json ${why}: ferry workers refuse to run it, so it waits for ever; issue it again, signed`);
    } else if (p.kind === 'result' && sig) {
      lines.push(
        `${name} ${why}: ferry drops it${state === 'claimed' || state === 'stale' ? `, so the order stays claimed by ${holder} for ever` : ''}`,
      );
    } else if (p.ferry_reads && p.problem === 'unauthorized_signer') {
      lines.push(`${name}: ${p.detail}`);
    } else if (p.ferry_reads) {
      lines.push(`${name} is misplaced (${p.detail}); ferry reads it by its content all the same`);
    } else if (sig) {
      lines.push(`${name} ${why}: ferry ignores it`);
    } else {
      lines.push(`${name}: ${p.detail}`);
    }
  }
  const shown = lines.slice(0, 2);
  if (lines.length > 2) shown.push(`and ${lines.length - 2} more (see Files)`);
  return shown.join('; ') || 'a file in its folder is bad: see Files';
}

