import { ago, utcClock, writerTime } from '@/lib/ui/time';

/** A local instant, relative ("12 min ago"), with its UTC time in the tooltip and for machines. */
export function Ago({ ms, now }: { ms: number; now: number }) {
  const iso = Number.isFinite(ms) ? new Date(Math.trunc(ms)).toISOString() : undefined;
  return (
    <time dateTime={iso} title={`${utcClock(ms, { date: true })} UTC (this machine's clock)`}>
      {now > 0 ? ago(ms, now) : utcClock(ms)}
    </time>
  );
}

/** A writer's timestamp as UTC, the original text in the tooltip (and shown when converted). */
export function WriterClock({ text, date = false }: { text: string; date?: boolean }) {
  const w = writerTime(text);
  if (!w) {
    return (
      <span className="font-mono" title="as written (not an RFC 3339 time)">
        {text}
      </span>
    );
  }
  return (
    <time dateTime={text} title={`as written: ${text}`} className="tabular-nums">
      {date ? `${w.date} ` : ''}
      {w.time} UTC
      {w.converted ? <span className="text-zinc-500 dark:text-zinc-400"> (written {text.slice(11)})</span> : null}
    </time>
  );
}
