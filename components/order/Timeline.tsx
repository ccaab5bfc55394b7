'use client';
import type { TimelineEvent } from '@/lib/api/types';
import { Badge } from '@/components/ui/badges';
import { AgentLink, OrderLink } from '@/components/ui/links';
import { Ago, WriterClock } from '@/components/ui/time';
import type { Tone } from '@/lib/ui/labels';
import { utcClock } from '@/lib/ui/time';

const KIND_TONE: Record<TimelineEvent['kind'], Tone> = {
  order: 'neutral',
  claim: 'active',
  heartbeat: 'neutral',
  result: 'done',
  review: 'review',
  recommendation: 'review',
  release: 'warn',
  giveup: 'danger',
  reopen: 'active',
  ack: 'done',
  interrupt: 'warn',
  interrupt_ack: 'neutral',
  supersede: 'active',
  retirement: 'danger',
};

const KIND_LABEL: Record<TimelineEvent['kind'], string> = {
  order: 'order',
  claim: 'claim',
  heartbeat: 'heartbeat',
  result: 'result',
  review: 'review',
  recommendation: 'recommendation',
  release: 'release',
  giveup: 'give-up',
  reopen: 'reopen',
  ack: 'acknowledge',
  interrupt: 'interrupt',
  interrupt_ack: 'interrupt seen',
  supersede: 'superseded',
  retirement: 'retirement',
};

/** Detail fields that name another order: shown as a link to it. */
const ORDER_FIELDS: ReadonlySet<string> = new Set(['by', 'supersedes']);

/**
 * An order's story, oldest arrival first: each row shows when the file arrived here (this
 * machine's clock) and what the writer's clock said, side by side, both in UTC; who wrote it;
 * one sentence; the kind.
 */
export function Timeline({ events, now }: { events: readonly TimelineEvent[]; now: number }) {
  if (events.length === 0) return <p className="text-sm text-zinc-500 dark:text-zinc-400">No records yet.</p>;
  const dates = events.map((ev) => utcClock(ev.arrival_ms, { date: true }).slice(0, 10));
  return (
    <ol className="relative ml-1 border-l border-zinc-200 dark:border-zinc-800" aria-label="timeline">
      {events.map((ev, i) => {
        const date = dates[i] ?? '';
        const showDate = date !== dates[i - 1];
        const details = Object.entries(ev.detail).filter(([, v]) => v !== null && v !== '');
        return (
          <li key={`${ev.path}:${i}`} data-kind={ev.kind} className="relative pb-4 pl-5 last:pb-0">
            <span
              aria-hidden="true"
              className={`absolute top-1.5 -left-[5px] size-2.5 rounded-full ring-2 ring-white dark:ring-zinc-950 ${dotClass(KIND_TONE[ev.kind])}`}
            />
            {showDate ? <p className="mb-1 text-xs font-semibold text-zinc-500 dark:text-zinc-400">{date} (UTC)</p> : null}
            <div className="grid gap-x-4 gap-y-1 sm:grid-cols-[14rem_1fr]">
              <div className="text-xs leading-5 text-zinc-600 tabular-nums dark:text-zinc-400">
                <div>
                  arrived <span className="font-medium text-zinc-900 dark:text-zinc-100">{utcClock(ev.arrival_ms)}</span> ·{' '}
                  <Ago ms={ev.arrival_ms} now={now} />
                </div>
                <div>
                  writer clock <WriterClock text={ev.writer_time} />
                </div>
              </div>
              <div className="min-w-0">
                <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
                  <Badge tone={KIND_TONE[ev.kind]}>{KIND_LABEL[ev.kind]}</Badge>
                  <AgentLink name={ev.writer} className="font-medium" />
                </p>
                <p className="mt-0.5 text-sm text-zinc-800 dark:text-zinc-200">{ev.summary}</p>
                {details.length > 0 ? (
                  <ul className="mt-1 flex flex-wrap gap-x-3 gap-y-0.5 text-xs text-zinc-600 dark:text-zinc-400">
                    {details.map(([k, v]) => (
                      <li key={k}>
                        <span className="text-zinc-500 dark:text-zinc-400">{k.replaceAll('_', ' ')}</span>{' '}
                        {ORDER_FIELDS.has(k) && typeof v === 'string' ? (
                          <OrderLink id={v} className="break-all text-zinc-800 dark:text-zinc-200" />
                        ) : (
                          <span className="font-mono break-all text-zinc-800 dark:text-zinc-200">{String(v)}</span>
                        )}
                      </li>
                    ))}
                  </ul>
                ) : null}
                <p className="mt-0.5 font-mono text-[11px] break-all text-zinc-500 dark:text-zinc-400">{ev.path}</p>
              </div>
            </div>
          </li>
        );
      })}
    </ol>
  );
}

function dotClass(tone: Tone): string {
  switch (tone) {
    case 'danger':
      return 'bg-red-500';
    case 'warn':
      return 'bg-amber-500';
    case 'active':
      return 'bg-sky-500';
    case 'review':
      return 'bg-violet-500';
    case 'done':
      return 'bg-emerald-500';
    case 'neutral':
      return 'bg-zinc-400 dark:bg-zinc-500';
  }
}
