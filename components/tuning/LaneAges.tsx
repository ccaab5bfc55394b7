'use client';
/**
 * Time in lane: per lane its count, its oldest card (linked, its age in words) and a small
 * log-scaled histogram of how long its cards have been there, every lane on the same x axis so
 * the rows compare (not on a phone: the table would scroll sideways; the median stays). Ages are
 * this machine's clock (TuningReport `lanes`). visx, as in DurationHistogram (why: its header).
 */
import { scaleLinear, scaleLog } from '@visx/scale';
import { Bar } from '@visx/shape';
import type { HistogramBucket, LaneAge } from '@/lib/ledger/tuning-types';
import { LaneBadge } from '@/components/ui/badges';
import { OrderLink } from '@/components/ui/links';
import { tableClass, tdClass, thClass } from '@/components/ui/page';
import { LANE_TITLE } from '@/lib/ui/labels';
import { countWords, durationDomain, durationWords, tickWords } from '@/lib/ui/tuning';
import { NotEnough } from './parts';

const MINI_W = 160;
const MINI_H = 26;

/** The lanes table; "Not enough data yet" when the channel has no cards. */
export function LaneAges({ lanes }: { lanes: readonly LaneAge[] }) {
  const total = lanes.reduce((n, l) => n + l.count, 0);
  if (total === 0) return <NotEnough>the channel has no orders, so no card has spent any time in a lane.</NotEnough>;
  const [lo, hi] = durationDomain(lanes.flatMap((l) => l.time_in_lane.histogram), []);
  return (
    <div className="overflow-x-auto">
      <table className={tableClass} data-lanes="">
        <caption className="sr-only">Time in lane: per lane its cards, its oldest card and how long its cards have been there</caption>
        <thead>
          <tr>
            <th className={thClass}>lane</th>
            <th className={`${thClass} text-right`}>cards</th>
            <th className={thClass}>oldest card</th>
            <th className={thClass}>median time there</th>
            <th className={`${thClass} max-sm:hidden`}>
              time in lane <span className="font-normal">(log, {tickWords(lo)} to {tickWords(hi)})</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {lanes.map((l) => (
            <tr key={l.lane} data-lane-age={l.lane}>
              <td className={tdClass}>
                <LaneBadge lane={l.lane} />
              </td>
              <td className={`${tdClass} text-right tabular-nums`}>{l.count.toLocaleString('en')}</td>
              <td className={tdClass}>
                {l.oldest ? (
                  <>
                    <OrderLink id={l.oldest.order_id} /> <span className="text-zinc-600 dark:text-zinc-400">for {durationWords(l.oldest.age_ms)}</span>
                  </>
                ) : (
                  <span className="text-zinc-500 dark:text-zinc-400">–</span>
                )}
              </td>
              <td className={`${tdClass} tabular-nums`}>{l.time_in_lane.p50_ms === null ? '–' : durationWords(l.time_in_lane.p50_ms)}</td>
              <td className={`${tdClass} max-sm:hidden`}>
                {l.time_in_lane.count > 0 ? (
                  <MiniHistogram
                    buckets={l.time_in_lane.histogram}
                    lo={lo}
                    hi={hi}
                    label={`${LANE_TITLE[l.lane]}: ${countWords(l.time_in_lane.count, 'card', 'cards')}${l.time_in_lane.p90_ms === null ? '' : `, 90 % there under ${durationWords(l.time_in_lane.p90_ms)}`}${l.time_in_lane.max_ms === null ? '' : `, the longest ${durationWords(l.time_in_lane.max_ms)}`}`}
                  />
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A row-sized histogram without axes (the column header names the scale); its words in aria-label. */
function MiniHistogram({ buckets, lo, hi, label }: { buckets: readonly HistogramBucket[]; lo: number; hi: number; label: string }) {
  const x = scaleLog<number>({ domain: [lo, hi], range: [0, MINI_W], clamp: true });
  const y = scaleLinear<number>({ domain: [0, Math.max(1, ...buckets.map((b) => b.n))], range: [MINI_H, 0] });
  return (
    <svg width={MINI_W} height={MINI_H} role="img" aria-label={label} className="block">
      <title>{label}</title>
      <line x1={0} x2={MINI_W} y1={MINI_H - 0.5} y2={MINI_H - 0.5} className="stroke-zinc-300 dark:stroke-zinc-700" />
      <g className="fill-sky-600/75 dark:fill-sky-400/70">
        {buckets.map((b) => {
          if (b.n <= 0) return null;
          const x0 = x(Math.max(b.lo_ms > 0 ? b.lo_ms : b.hi_ms / 2, lo));
          const x1 = x(Math.min(b.hi_ms, hi));
          const top = Math.min(y(b.n), MINI_H - 2);
          return <Bar key={`${b.lo_ms}-${b.hi_ms}`} x={x0} y={top} width={Math.max(1, x1 - x0 - 0.5)} height={MINI_H - top} />;
        })}
      </g>
    </svg>
  );
}
