import type { BoardCard, CardLocal } from '@/lib/api/types';

/**
 * This machine's verdict on a run's pid, as one line: dead (or the pid reused) in the
 * attention tone, alive in a calm one, unknown in grey. Absent on other machines: nothing shown.
 * `onlyWhenItMatters` (the board's cards): only a gone run's, or any on a stale run, since a fresh
 * run's living pid says nothing the card does not; and not a gone run's on a card held for review
 * (`dead_run_held`), whose hold sentence says the same.
 */
export function LocalLine({ card, className = 'text-xs', onlyWhenItMatters = false }: { card: BoardCard; className?: string; onlyWhenItMatters?: boolean }) {
  const local = card.local;
  if (!local) return null;
  const stale = card.state === 'stale' || card.run_lane === 'stale';
  const gone = local.verdict === 'dead' || local.verdict === 'reused';
  if (onlyWhenItMatters && !stale && !gone) return null;
  if (onlyWhenItMatters && gone && card.flags.includes('dead_run_held')) return null;
  return (
    <p className={`mt-1 ${className} ${localTone(local.verdict)}`} data-local={local.verdict}>
      {local.text}
    </p>
  );
}

/** The text colour of a verdict (red: the run is gone; green: it lives; grey: cannot tell). */
function localTone(v: CardLocal['verdict']): string {
  switch (v) {
    case 'dead':
    case 'reused':
      return 'font-medium text-red-700 dark:text-red-300';
    case 'alive':
      return 'text-emerald-800 dark:text-emerald-300';
    case 'unknown':
      return 'text-zinc-600 dark:text-zinc-400';
  }
}
