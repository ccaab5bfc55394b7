'use client';
/**
 * The stale-threshold page (`/tuning`): whether `--stale-after` fits what the
 * fleet really does. Heartbeat gaps (arrivals here, this machine's clock) with the threshold in
 * force and the suggested one drawn as lines, the share beyond it, the suggestion's rule, what
 * each threshold would have flagged; run durations (claim to result, the holder's clock); time
 * in lane and the oldest card of each lane. Charts: visx (why: DurationHistogram's header).
 */
import type { TuningReport } from '@/lib/ledger/tuning-types';
import { useTuning } from '@/lib/client/tuning';
import { useServerNow } from '@/lib/client/clock';
import { Loading, QueryError, Section } from '@/components/ui/page';
import { ChannelChip, ChannelScope } from '@/components/ui/channel';
import { inChannel } from '@/lib/ui/card-channel';
import { Ago } from '@/components/ui/time';
import { beyondSentence, durationWords, staleNowSentence } from '@/lib/ui/tuning';
import { DurationHistogram } from './DurationHistogram';
import { LaneAges } from './LaneAges';
import { gapsNotEnough, NotEnough, Percentiles, runsNotEnough, SuggestionBlock, thresholdMarks, WouldFlagBlock } from './parts';

const GAP: readonly [string, string] = ['gap', 'gaps'];
const RUN: readonly [string, string] = ['run', 'runs'];

/** The whole page: the channel's report (in a hub, of `channel`; none given: the channels to pick from), refreshed every 15 s. */
export function TuningView({ channel }: { channel?: string }) {
  const q = useTuning(null, channel);
  const now = useServerNow(q.data?.now_ms, q.dataUpdatedAt);
  if (q.isPending) return <Loading what="the threshold report" />;
  if (q.isError && !q.data) return <QueryError error={q.error} what="threshold report" retry={() => void q.refetch()} pick={(c) => inChannel('/tuning', c)} />;
  return (
    <ChannelScope channel={channel}>
      <TuningReportView r={q.data} now={now} channel={channel} />
    </ChannelScope>
  );
}

/** The report as the page shows it; `now` is this machine's clock as the browser estimates it (lib/client/clock.ts). */
export function TuningReportView({ r, now, channel }: { r: TuningReport; now: number; channel?: string | undefined }) {
  const gapsWhy = gapsNotEnough(r.gaps);
  const runsWhy = runsNotEnough(r.runs);
  const staleNow = staleNowSentence(r.stale_now);
  return (
    <div className="mx-auto max-w-6xl px-4 py-5 sm:px-6">
      <h1 className="flex items-center gap-2 text-lg font-semibold tracking-tight">
        Threshold {channel ? <ChannelChip channel={channel} /> : null}
      </h1>
      <p className="mt-1 max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
        Whether the stale threshold fits what this fleet really does. A claim counts as stale when its run&apos;s heartbeat has not
        arrived here for <strong className="font-semibold text-zinc-900 dark:text-zinc-100" data-threshold="">{durationWords(r.stale_after_ms)}</strong>{' '}
        (<code className="font-mono text-xs">--stale-after {Math.round(r.stale_after_ms / 1000)}</code>). A good threshold sits beyond the
        tail of the gaps a healthy run leaves, not at a round number. Advisory: claimboard never releases or re-queues anything by itself.
      </p>

      <Section
        title="Heartbeat gaps"
        id="gaps"
        aside={
          r.gaps.observed_since_ms === null ? 'not observed yet' : (
            <>
              observed by this index since <Ago ms={r.gaps.observed_since_ms} now={now} />
            </>
          )
        }
      >
        <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_19rem]">
          <div className="min-w-0">
            {gapsWhy === null ? (
              <DurationHistogram id="gaps-chart" title="Time between two arrivals of one run's heartbeat, on this machine's clock" dist={r.gaps} noun={GAP} marks={thresholdMarks(r)} />
            ) : (
              <NotEnough>{gapsWhy}</NotEnough>
            )}
            <p className="mt-2 text-sm" data-beyond="">
              {beyondSentence(r.gaps.beyond_threshold, r.gaps.share_beyond, r.stale_after_ms)}
            </p>
          </div>
          <div className="space-y-4">
            <Percentiles dist={r.gaps} noun={GAP} />
            <SuggestionBlock s={r.suggestion} staleAfterMs={r.stale_after_ms} />
          </div>
        </div>
        <h3 className="mt-6 text-sm font-semibold">What it would have flagged</h3>
        <p className="mt-0.5 mb-2 text-xs text-zinc-500 dark:text-zinc-400">
          A run counts when its longest observed heartbeat gap was longer than the threshold: it would have shown as stale at least once.
        </p>
        <WouldFlagBlock wf={r.would_flag} />
        {staleNow ? (
          <p className="mt-3 text-sm" data-stale-now="">
            {staleNow}
          </p>
        ) : null}
      </Section>

      <Section title="Run durations" id="runs">
        <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_19rem]">
          <div className="min-w-0">
            {runsWhy === null ? <DurationHistogram id="runs-chart" title="From claim to result, per run" dist={r.runs} noun={RUN} /> : <NotEnough>{runsWhy}</NotEnough>}
            <p className="mt-2 text-xs text-zinc-500 dark:text-zinc-400">
              From each run&apos;s claim (<code className="font-mono">claimed_at</code>) to its result (<code className="font-mono">at</code>), both written by
              the holder: measured on the holder&apos;s own clock, not this machine&apos;s, so another machine&apos;s clock being off does not show here.
            </p>
          </div>
          <Percentiles dist={r.runs} noun={RUN} />
        </div>
      </Section>

      <Section title="Time in lane" id="lanes" aside="this machine's clock">
        <LaneAges lanes={r.lanes} />
      </Section>
    </div>
  );
}
