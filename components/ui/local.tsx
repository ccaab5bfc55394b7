import type { CardLocal } from '@/lib/api/types';

/**
 * This machine's verdict on a run's pid (issue 16), as one line: dead (or the pid reused) in the
 * attention tone, alive in a calm one, unknown in grey. Absent on other machines: nothing shown.
 */
export function LocalLine({ local, className = 'text-xs' }: { local: CardLocal | undefined; className?: string }) {
  if (!local) return null;
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
