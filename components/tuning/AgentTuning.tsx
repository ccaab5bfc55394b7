'use client';
/**
 * The agent page's compact stale-threshold plots (`GET /api/tuning?agent=<name>`): that agent's
 * heartbeat gaps with the threshold line(s) and its run durations, side by side, each with its
 * figures in one sentence; the whole channel's report is on /tuning.
 */
import { PageLink } from '@/components/ui/links';
import type { Distribution, TuningReport } from '@/lib/ledger/tuning-types';
import { useTuning } from '@/lib/client/tuning';
import { QueryError, Section } from '@/components/ui/page';
import { beyondSentence, countWords, durationWords } from '@/lib/ui/tuning';
import { DurationHistogram } from './DurationHistogram';
import { gapsNotEnough, NotEnough, runsNotEnough, thresholdMarks } from './parts';
import { usePageChannel } from '@/components/ui/channel';
import { inChannel } from '@/lib/ui/card-channel';

/** The section, loading its own data (of the page's channel, in a hub). */
export function AgentTuning({ name }: { name: string }) {
  const channel = usePageChannel();
  const q = useTuning(name, channel);
  return (
    <Section
      title="Heartbeat gaps and run durations"
      id="tuning"
      aside={
        <PageLink href={inChannel('/tuning', channel)} className="underline underline-offset-2">
          the whole channel
        </PageLink>
      }
    >
      {q.isPending ? (
        <p role="status" className="text-sm text-zinc-500 dark:text-zinc-400">
          Loading its heartbeat gaps and run durations…
        </p>
      ) : q.isError && !q.data ? (
        <QueryError error={q.error} what="its heartbeat gaps and run durations" retry={() => void q.refetch()} />
      ) : (
        <AgentTuningView r={q.data} />
      )}
    </Section>
  );
}

function figures(d: Distribution, noun: readonly [string, string]): string {
  if (d.count === 0 || d.p50_ms === null) return `No ${noun[1]} yet.`;
  return `${countWords(d.count, noun[0], noun[1])}: median ${durationWords(d.p50_ms)}, p99 ${durationWords(d.p99_ms ?? d.p50_ms)}, longest ${durationWords(d.max_ms ?? d.p50_ms)}.`;
}

/** The two compact charts for one agent's report. */
export function AgentTuningView({ r }: { r: TuningReport }) {
  const gapsWhy = gapsNotEnough(r.gaps);
  const runsWhy = runsNotEnough(r.runs);
  return (
    <div className="grid gap-6 md:grid-cols-2">
      <div className="min-w-0">
        {gapsWhy === null ? (
          <DurationHistogram id="agent-gaps-chart" title="Its heartbeat gaps (arrivals here, this machine's clock)" dist={r.gaps} noun={['gap', 'gaps']} marks={thresholdMarks(r)} height={150} />
        ) : (
          <NotEnough>{gapsWhy}</NotEnough>
        )}
        <p className="mt-1 text-sm">{figures(r.gaps, ['gap', 'gaps'])}</p>
        <p className="text-sm" data-beyond="">
          {beyondSentence(r.gaps.beyond_threshold, r.gaps.share_beyond, r.stale_after_ms)}
        </p>
        {r.suggestion.suggested_ms !== null ? (
          <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
            Its gaps alone suggest {durationWords(r.suggestion.suggested_ms)}: {r.suggestion.rule}
          </p>
        ) : null}
      </div>
      <div className="min-w-0">
        {runsWhy === null ? (
          <DurationHistogram id="agent-runs-chart" title="Its run durations (claim to result, its own clock)" dist={r.runs} noun={['run', 'runs']} height={150} />
        ) : (
          <NotEnough>{runsWhy}</NotEnough>
        )}
        <p className="mt-1 text-sm">{figures(r.runs, ['run', 'runs'])}</p>
      </div>
    </div>
  );
}
