'use client';
/**
 * The pieces of the stale-threshold page that are words, not charts: the percentiles, the
 * "not enough data" sentence, the suggestion and its rule, what a threshold would have flagged.
 * Presentational: a TuningReport (lib/ledger/tuning-types.ts) in, markup out.
 */
import type { ReactNode } from 'react';
import type { Distribution, Suggestion, TuningReport, WouldFlag } from '@/lib/ledger/tuning-types';
import { AgentLink, OrderLink } from '@/components/ui/links';
import { countWords, durationWords, MIN_CHART_SAMPLES } from '@/lib/ui/tuning';
import type { Mark } from './DurationHistogram';

/** The plain sentence shown instead of a chart: "Not enough data yet: …". */
export function NotEnough({ children }: { children: ReactNode }) {
  return (
    <p data-not-enough="" className="rounded-md border border-dashed border-zinc-300 px-3 py-4 text-sm text-zinc-700 dark:border-zinc-700 dark:text-zinc-300">
      <span className="font-medium">Not enough data yet:</span> {children}
    </p>
  );
}

/** Whether a distribution has enough samples to be drawn (MIN_CHART_SAMPLES). */
export const drawable = (d: Distribution): boolean => d.count >= MIN_CHART_SAMPLES;

/** Why the gaps chart is not drawn, in words (null when it is). */
export function gapsNotEnough(g: TuningReport['gaps']): string | null {
  if (drawable(g)) return null;
  if (g.count === 0) {
    return 'no run’s heartbeat has arrived here twice since this index started watching, so there is no gap to measure yet. Gaps are observed live, one per heartbeat rewrite that arrives here; a working fleet fills this chart within minutes.';
  }
  return `only ${countWords(g.count, 'heartbeat gap', 'heartbeat gaps')} observed so far; a distribution needs at least ${MIN_CHART_SAMPLES}.`;
}

/** Why the run-durations chart is not drawn, in words (null when it is). */
export function runsNotEnough(r: Distribution): string | null {
  if (drawable(r)) return null;
  if (r.count === 0) return 'no run in this channel has both a claim and a result yet, so no run duration can be measured.';
  return `only ${countWords(r.count, 'finished run', 'finished runs')} so far; a distribution needs at least ${MIN_CHART_SAMPLES}.`;
}

/** The threshold lines of the gaps chart: the one in force, and the suggested one when there is one. */
export function thresholdMarks(r: TuningReport): Mark[] {
  const marks: Mark[] = [{ ms: r.stale_after_ms, label: `stale after ${durationWords(r.stale_after_ms)}`, kind: 'current' }];
  if (r.suggestion.suggested_ms !== null) marks.push({ ms: r.suggestion.suggested_ms, label: `suggested ${durationWords(r.suggestion.suggested_ms)}`, kind: 'suggested' });
  return marks;
}

/** count, p50, p90, p99, max as a small definition list. */
export function Percentiles({ dist, noun }: { dist: Distribution; noun: readonly [string, string] }) {
  const row = (term: string, ms: number | null) => (
    <div className="flex justify-between gap-4">
      <dt className="text-zinc-500 dark:text-zinc-400">{term}</dt>
      <dd className="tabular-nums">{ms === null ? '–' : durationWords(ms)}</dd>
    </div>
  );
  return (
    <dl className="grid content-start gap-y-0.5 self-start text-sm" data-percentiles="">
      <div className="flex justify-between gap-4">
        <dt className="text-zinc-500 dark:text-zinc-400">{noun[1]}</dt>
        <dd className="tabular-nums">{dist.count.toLocaleString('en')}</dd>
      </div>
      {row('median (p50)', dist.p50_ms)}
      {row('p90', dist.p90_ms)}
      {row('p99', dist.p99_ms)}
      {row('longest', dist.max_ms)}
    </dl>
  );
}

/** The suggested threshold, its rule in words, and how to set it; or why there is none. */
export function SuggestionBlock({ s, staleAfterMs }: { s: Suggestion; staleAfterMs: number }) {
  if (s.suggested_ms === null) {
    return (
      <div className="text-sm" data-suggestion="none">
        <p className="font-medium">No suggestion yet.</p>
        <p className="mt-0.5 text-zinc-700 dark:text-zinc-300">{capitalized(s.not_enough ?? 'there is not enough data.')}</p>
        {s.rule ? <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">The rule, once there is: {s.rule}</p> : null}
      </div>
    );
  }
  const seconds = Math.ceil(s.suggested_ms / 1000);
  const same = Math.ceil(staleAfterMs / 1000) === seconds;
  return (
    <div className="text-sm" data-suggestion="some">
      <p>
        <span className="font-medium">Suggested threshold: </span>
        <span className="font-semibold text-emerald-700 dark:text-emerald-300">{durationWords(s.suggested_ms)}</span>
        {same ? ' (the one in force)' : null}
      </p>
      <p className="mt-0.5 text-zinc-700 dark:text-zinc-300">{s.rule}</p>
      {same ? null : (
        <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
          To use it: <code className="font-mono">claimboard serve --stale-after {seconds}</code>. Advisory: claimboard changes nothing by itself.
        </p>
      )}
    </div>
  );
}

const capitalized = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);

const SHOWN_EXAMPLES = 5;

/** One threshold's verdict: how many runs it would have shown stale, with the longest examples linked. */
function FlagColumn({ title, w, tone }: { title: string; w: WouldFlag; tone: 'current' | 'suggested' }) {
  const rows = (list: WouldFlag['examples']) =>
    list.map((e) => (
      <li key={`${e.order_id}:${e.run}`} className="flex flex-wrap items-baseline gap-x-2">
        <OrderLink id={e.order_id} />
        <span className="text-zinc-500 dark:text-zinc-400">
          <AgentLink name={e.agent} />, longest gap <span className="tabular-nums">{durationWords(e.max_gap_ms)}</span>
        </span>
      </li>
    ));
  const first = w.examples.slice(0, SHOWN_EXAMPLES);
  const rest = w.examples.slice(SHOWN_EXAMPLES);
  return (
    <div data-would-flag={tone} className="min-w-0">
      <h4 className={`text-sm font-medium ${tone === 'current' ? 'text-red-800 dark:text-red-300' : 'text-emerald-800 dark:text-emerald-300'}`}>
        {title} ({durationWords(w.threshold_ms)})
      </h4>
      <p className="mt-0.5 text-sm">
        {w.of_runs === 0
          ? 'No run has an observed gap yet.'
          : `${w.runs.toLocaleString('en')} of ${countWords(w.of_runs, 'run', 'runs')} would have shown as stale at least once.`}
      </p>
      {first.length > 0 ? <ul className="mt-1 space-y-0.5 text-sm">{rows(first)}</ul> : null}
      {rest.length > 0 ? (
        <details className="mt-1 text-sm">
          <summary className="cursor-pointer text-zinc-600 select-none dark:text-zinc-400">{rest.length} more</summary>
          <ul className="mt-1 space-y-0.5">{rows(rest)}</ul>
        </details>
      ) : null}
    </div>
  );
}

/** "What it would have flagged": the threshold in force beside the suggested one. */
export function WouldFlagBlock({ wf }: { wf: TuningReport['would_flag'] }) {
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      <FlagColumn title="At the threshold in force" w={wf.current} tone="current" />
      {wf.suggested ? (
        <FlagColumn title="At the suggested threshold" w={wf.suggested} tone="suggested" />
      ) : (
        <p className="text-sm text-zinc-500 dark:text-zinc-400">No suggested threshold to compare with yet.</p>
      )}
    </div>
  );
}
