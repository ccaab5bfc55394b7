import type { Tone } from '@/lib/ui/labels';

/** Badge colours per tone; muted fills, readable text in both schemes. */
export const BADGE_TONE: Record<Tone, string> = {
  danger: 'bg-red-50 text-red-800 ring-red-200 dark:bg-red-950/60 dark:text-red-200 dark:ring-red-900',
  warn: 'bg-amber-50 text-amber-900 ring-amber-200 dark:bg-amber-950/50 dark:text-amber-200 dark:ring-amber-900',
  active: 'bg-sky-50 text-sky-800 ring-sky-200 dark:bg-sky-950/50 dark:text-sky-200 dark:ring-sky-900',
  review: 'bg-violet-50 text-violet-800 ring-violet-200 dark:bg-violet-950/50 dark:text-violet-200 dark:ring-violet-900',
  neutral: 'bg-zinc-100 text-zinc-700 ring-zinc-200 dark:bg-zinc-800/70 dark:text-zinc-300 dark:ring-zinc-700',
  done: 'bg-emerald-50 text-emerald-800 ring-emerald-200 dark:bg-emerald-950/40 dark:text-emerald-300 dark:ring-emerald-900',
};

/** Lane accents: a top rule and the header text. */
export const LANE_ACCENT: Record<Tone, { rule: string; title: string; count: string }> = {
  danger: {
    rule: 'border-t-red-500 dark:border-t-red-500',
    title: 'text-red-800 dark:text-red-300',
    count: 'bg-red-600 text-white dark:bg-red-500 dark:text-red-950',
  },
  warn: {
    rule: 'border-t-amber-500 dark:border-t-amber-400',
    title: 'text-amber-900 dark:text-amber-300',
    count: 'bg-amber-500 text-amber-950 dark:bg-amber-400 dark:text-amber-950',
  },
  active: {
    rule: 'border-t-sky-500/70',
    title: 'text-zinc-800 dark:text-zinc-200',
    count: 'bg-zinc-200 text-zinc-800 dark:bg-zinc-700 dark:text-zinc-100',
  },
  review: {
    rule: 'border-t-violet-500/70',
    title: 'text-zinc-800 dark:text-zinc-200',
    count: 'bg-zinc-200 text-zinc-800 dark:bg-zinc-700 dark:text-zinc-100',
  },
  neutral: {
    rule: 'border-t-zinc-400/70 dark:border-t-zinc-600',
    title: 'text-zinc-800 dark:text-zinc-200',
    count: 'bg-zinc-200 text-zinc-800 dark:bg-zinc-700 dark:text-zinc-100',
  },
  done: {
    rule: 'border-t-emerald-500/60',
    title: 'text-zinc-800 dark:text-zinc-200',
    count: 'bg-zinc-200 text-zinc-800 dark:bg-zinc-700 dark:text-zinc-100',
  },
};
