'use client';
/**
 * A histogram of durations on a log-scaled x axis, with labelled vertical lines (the stale
 * threshold in force, the suggested one dashed), drawn with visx.
 *
 * Why visx and not uPlot: visx is React components that output plain SVG, so a chart renders
 * on the server or the client alike with no canvas; it injects no `<style>` element and
 * evaluates no code, so it runs clean under the pages' CSP (script-src by nonce,
 * lib/security.ts); every colour here is a Tailwind class or `currentColor`, so dark mode
 * follows the theme like the rest of the page; and its text is real SVG text that screen
 * readers and Playwright can read. uPlot draws on a canvas (nothing to read, colours fixed in
 * JavaScript options, its CSS a separate stylesheet to ship).
 *
 * Accessible: the SVG is `role="img"` with a title and a description in words (count,
 * percentiles, the lines); the buckets are a table under "The numbers".
 */
import { AxisBottom, AxisLeft } from '@visx/axis';
import { Group } from '@visx/group';
import { scaleLinear, scaleLog } from '@visx/scale';
import { Bar, Line } from '@visx/shape';
import type { Distribution } from '@/lib/ledger/tuning-types';
import { tableClass, tdClass, thClass } from '@/components/ui/page';
import { countWords, durationDomain, durationWords, LABEL_GAP, logTicks, placeMarkLabels, tickWords } from '@/lib/ui/tuning';
import { useWidth } from './useWidth';

/** A vertical line across the chart: the threshold in force (solid) or a suggested one (dashed). */
export interface Mark {
  readonly ms: number;
  readonly label: string;
  readonly kind: 'current' | 'suggested';
}

const MARK_STYLE: Record<Mark['kind'], { line: string; text: string; dash: string | undefined }> = {
  current: { line: 'stroke-red-600 dark:stroke-red-400', text: 'fill-red-700 dark:fill-red-300', dash: undefined },
  suggested: { line: 'stroke-emerald-600 dark:stroke-emerald-400', text: 'fill-emerald-700 dark:fill-emerald-300', dash: '5 4' },
};

const LABEL_ROW = 15;

/**
 * @param id     a page-unique id (the title and description are labelled by it)
 * @param title  what the chart shows, in words (its SVG title)
 * @param dist   the distribution (durations in ms; `histogram` non-empty buckets ascending)
 * @param noun   what one sample is, singular and plural ("gap", "gaps")
 * @param marks  vertical lines, drawn in order; each label on its own row above the plot
 */
export function DurationHistogram({
  id,
  title,
  dist,
  noun,
  marks = [],
  height = 200,
}: {
  id: string;
  title: string;
  dist: Distribution;
  noun: readonly [string, string];
  marks?: readonly Mark[];
  height?: number;
}) {
  const [ref, width] = useWidth<HTMLDivElement>(640);
  const buckets = dist.histogram;
  const [lo, hi] = durationDomain(buckets, marks.map((m) => m.ms));
  const maxN = Math.max(1, ...buckets.map((b) => b.n));

  const margin = { top: 6 + LABEL_ROW * marks.length, right: 12, bottom: 28, left: 14 + 7 * String(maxN).length };
  const innerW = Math.max(40, width - margin.left - margin.right);
  const innerH = Math.max(40, height - margin.top - margin.bottom);

  const x = scaleLog<number>({ domain: [lo, hi], range: [0, innerW], clamp: true });
  const y = scaleLinear<number>({ domain: [0, maxN], range: [innerH, 0], nice: true });
  // About one label per 55 px: "30 min" at 11 px is ~36 px wide.
  const xTicks = logTicks(lo, hi, Math.max(2, Math.floor(innerW / 55)));
  const yTicks = y.ticks(innerH < 90 ? 2 : 4).filter((t) => Number.isInteger(t));

  // 12 px semibold: about 7 px a character.
  const places = placeMarkLabels(
    marks.map((m) => ({ x: x(m.ms), width: 7 * m.label.length })),
    -margin.left,
    innerW + margin.right,
  );
  const desc = describe(dist, noun, marks, lo, hi);

  return (
    <figure aria-labelledby={`${id}-caption`} className="min-w-0">
      <figcaption id={`${id}-caption`} className="text-sm font-medium text-zinc-800 dark:text-zinc-200">
        {title}
      </figcaption>
      <div ref={ref} className="mt-1 w-full">
        <svg width={width} height={height} role="img" aria-labelledby={`${id}-title ${id}-desc`} data-chart={id} className="block max-w-full">
          <title id={`${id}-title`}>{title}</title>
          <desc id={`${id}-desc`}>{desc}</desc>
          <Group left={margin.left} top={margin.top}>
            <g className="text-zinc-200 dark:text-zinc-800" aria-hidden="true">
              {yTicks.map((t) => (
                <Line key={t} from={{ x: 0, y: y(t) }} to={{ x: innerW, y: y(t) }} stroke="currentColor" strokeWidth={1} />
              ))}
            </g>
            <g className="fill-sky-600/75 dark:fill-sky-400/70">
              {buckets.map((b) => {
                if (b.n <= 0) return null;
                const x0 = x(Math.max(b.lo_ms > 0 ? b.lo_ms : b.hi_ms / 2, lo));
                const x1 = x(Math.min(b.hi_ms, hi));
                // A bucket of one sample stays visible (2 px) however tall the tallest is.
                const top = Math.min(y(b.n), innerH - 2);
                return (
                  <Bar key={`${b.lo_ms}-${b.hi_ms}`} x={x0} y={top} width={Math.max(1, x1 - x0 - 1)} height={innerH - top}>
                    <title>{`${durationWords(b.lo_ms)} to ${durationWords(b.hi_ms)}: ${countWords(b.n, noun[0], noun[1])}`}</title>
                  </Bar>
                );
              })}
            </g>
            <g className="text-zinc-600 dark:text-zinc-400">
              <AxisLeft
                scale={y}
                tickValues={yTicks}
                tickFormat={(v) => Number(v).toLocaleString('en')}
                stroke="currentColor"
                tickStroke="currentColor"
                tickLength={3}
                hideAxisLine
                tickLabelProps={{ fill: 'currentColor', fontSize: 11, textAnchor: 'end', dx: -2, dy: '0.33em' }}
              />
              <AxisBottom
                top={innerH}
                scale={x}
                tickValues={xTicks}
                tickFormat={(v) => tickWords(Number(v))}
                stroke="currentColor"
                tickStroke="currentColor"
                tickLength={4}
                tickLabelProps={{ fill: 'currentColor', fontSize: 11, textAnchor: 'middle' }}
              />
            </g>
            {marks.map((m, i) => {
              const s = MARK_STYLE[m.kind];
              const mx = x(m.ms);
              const place = places[i] ?? { anchor: 'start', row: i };
              // Row 0 is the top one; a line starts at its own label's row.
              const rowTop = -LABEL_ROW * (marks.length - place.row);
              return (
                <g key={`${m.kind}-${m.ms}`} data-mark={m.kind}>
                  <Line from={{ x: mx, y: rowTop + 4 }} to={{ x: mx, y: innerH }} className={s.line} strokeWidth={2} strokeDasharray={s.dash} />
                  <text x={place.anchor === 'start' ? mx + LABEL_GAP : mx - LABEL_GAP} y={rowTop + 9} textAnchor={place.anchor} fontSize={12} fontWeight={600} className={s.text}>
                    {m.label}
                  </text>
                </g>
              );
            })}
          </Group>
        </svg>
      </div>
      <details className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
        <summary className="cursor-pointer select-none">The numbers</summary>
        <table className={`${tableClass} mt-1 max-w-sm`}>
          <caption className="sr-only">{title}: {noun[1]} per bucket</caption>
          <thead>
            <tr>
              <th className={thClass}>from</th>
              <th className={thClass}>to (not included)</th>
              <th className={`${thClass} text-right`}>{noun[1]}</th>
            </tr>
          </thead>
          <tbody>
            {buckets.map((b) => (
              <tr key={`${b.lo_ms}-${b.hi_ms}`}>
                <td className={tdClass}>{durationWords(b.lo_ms)}</td>
                <td className={tdClass}>{durationWords(b.hi_ms)}</td>
                <td className={`${tdClass} text-right tabular-nums`}>{b.n.toLocaleString('en')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** The chart in one sentence, for its SVG description. */
export function describe(dist: Distribution, noun: readonly [string, string], marks: readonly Mark[], lo: number, hi: number): string {
  const parts = [`${countWords(dist.count, noun[0], noun[1])} on a log scale from ${tickWords(lo)} to ${tickWords(hi)}`];
  if (dist.p50_ms !== null) parts.push(`median ${durationWords(dist.p50_ms)}`);
  if (dist.p90_ms !== null) parts.push(`90th percentile ${durationWords(dist.p90_ms)}`);
  if (dist.p99_ms !== null) parts.push(`99th percentile ${durationWords(dist.p99_ms)}`);
  if (dist.max_ms !== null) parts.push(`longest ${durationWords(dist.max_ms)}`);
  for (const m of marks) parts.push(`a ${m.kind === 'current' ? 'solid' : 'dashed'} line at ${durationWords(m.ms)}: ${m.label}`);
  return `${parts.join('; ')}.`;
}
