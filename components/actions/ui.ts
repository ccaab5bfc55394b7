/**
 * Class names shared by the action components (buttons, fields, notes). On a touch screen
 * (`pointer: coarse`) buttons and fields are at least 44 px high, and fields use 16 px text (a
 * phone's browser zooms into a field with smaller text when it gets focus).
 */

export const btn = {
  primary:
    'inline-flex items-center justify-center gap-1.5 rounded-md bg-zinc-900 px-3 py-1.5 pointer-coarse:min-h-11 pointer-coarse:px-4 text-sm font-semibold text-white hover:bg-zinc-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 disabled:cursor-not-allowed disabled:bg-zinc-300 disabled:text-zinc-600 dark:bg-zinc-100 dark:text-zinc-950 dark:hover:bg-white dark:disabled:bg-zinc-800 dark:disabled:text-zinc-400',
  danger:
    'inline-flex items-center justify-center gap-1.5 rounded-md bg-red-700 px-3 py-1.5 pointer-coarse:min-h-11 pointer-coarse:px-4 text-sm font-semibold text-white hover:bg-red-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 disabled:cursor-not-allowed disabled:bg-zinc-300 disabled:text-zinc-600 dark:bg-red-600 dark:hover:bg-red-500 dark:disabled:bg-zinc-800 dark:disabled:text-zinc-400',
  secondary:
    'inline-flex items-center justify-center gap-1.5 rounded-md border border-zinc-300 bg-white px-3 py-1.5 pointer-coarse:min-h-11 pointer-coarse:px-4 text-sm font-medium text-zinc-800 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 disabled:cursor-not-allowed disabled:opacity-60 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800',
  small:
    'inline-flex items-center gap-1 rounded border border-zinc-300 bg-white px-1.5 py-0.5 pointer-coarse:min-h-11 pointer-coarse:px-3 text-xs font-medium text-zinc-700 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500 disabled:cursor-not-allowed disabled:opacity-60 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200 dark:hover:bg-zinc-800',
};

export const field =
  'block w-full rounded-md border border-zinc-300 bg-white px-2.5 py-1.5 text-sm pointer-coarse:min-h-11 pointer-coarse:text-base text-zinc-900 placeholder:text-zinc-400 focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500/40 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100';

export const note = {
  error: 'rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200',
  warn: 'rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-100',
  ok: 'rounded-md border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-950 dark:border-emerald-900 dark:bg-emerald-950/40 dark:text-emerald-100',
  info: 'rounded-md border border-zinc-200 bg-zinc-50 px-3 py-2 text-sm text-zinc-800 dark:border-zinc-800 dark:bg-zinc-900/60 dark:text-zinc-200',
};
