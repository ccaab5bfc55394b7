/**
 * The first start's build (`next build --webpack`, run by `serve` in a checkout) in a few words
 * a person can follow: Next's own lines mapped to "step n of m", its route table and the rest
 * kept out of the terminal (shown only when the build fails). Pure; the spawning is serve.ts's.
 */

/** The steps, in order, with the Next line that begins each. */
export const BUILD_STEPS: readonly { readonly starts: RegExp; readonly what: string }[] = [
  { starts: /Creating an optimized production build/, what: 'compiling the pages (the longest step)' },
  { starts: /Running TypeScript|Skipping validation of types/, what: 'checking the types' },
  { starts: /Collecting page data/, what: 'collecting page data' },
  { starts: /Generating static pages/, what: 'generating the static pages' },
  { starts: /Finalizing page optimization/, what: 'finishing' },
];

/** The step a line of Next's output begins (1-based), or null. */
export function buildStepOf(line: string): number | null {
  const i = BUILD_STEPS.findIndex((s) => s.starts.test(line));
  return i < 0 ? null : i + 1;
}

/** "building the dashboard, step 2 of 5: checking the types (step 1 took 41 s)". */
export function buildStepLine(step: number, previousTookMs: number | null): string {
  const s = BUILD_STEPS[step - 1];
  const took = previousTookMs === null ? '' : ` (step ${step - 1} took ${Math.round(previousTookMs / 1000)} s)`;
  return `building the dashboard, step ${step} of ${BUILD_STEPS.length}: ${s?.what ?? ''}${took}`;
}
