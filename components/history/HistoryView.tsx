'use client';
/**
 * /history: who held what across the fleet, on one time axis. The window (the last hour, 24 h,
 * 7 d, 30 d, or from and to; none: the server fits it to the holds) and the query live in the
 * URL; the data comes from GET /api/history, the server's answer first (app/history/page.tsx),
 * then live like the board (lib/client/live.ts).
 */
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import type { HistoryResponse } from '@/lib/api/types';
import { useHistory } from '@/lib/client/api';
import { useServerNow } from '@/lib/client/clock';
import { closerWindow, fitWords, historySearch, parseHistoryParams, RANGE_LABEL, type HistoryParams } from '@/lib/ui/history';
import { MAX_WINDOW_MS, MIN_WINDOW_MS, panWindow, RANGE_NAMES, zoomWindow, type HistoryWindow } from '@/lib/query/window';
import { formatDuration, utcClock } from '@/lib/ui/time';
import { Loading, QueryError } from '@/components/ui/page';
import { ChannelChip, ChannelScope } from '@/components/ui/channel';
import { Legend, Swimlanes } from './Swimlanes';
import { AgentNumbersTable, FleetNumbersPanel } from './HistoryNumbers';

const control = 'h-8 rounded-md border border-zinc-300 bg-white px-2 text-sm text-zinc-900 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100';
const button =
  'h-8 rounded-md border border-zinc-300 bg-white px-2.5 text-sm font-medium text-zinc-800 hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800 pointer-coarse:h-11';

/** An instant for a datetime-local input, read as UTC: "2026-11-20T09:05". */
const utcInput = (ms: number) => new Date(Math.trunc(ms)).toISOString().slice(0, 16);

export function HistoryView({ initial }: { initial?: { search: string; data: HistoryResponse } }) {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const p = parseHistoryParams(params);
  const search = historySearch(p);
  const q = useHistory(search, initial);
  const data = q.data;
  const now = useServerNow(data?.now_ms, q.dataUpdatedAt);
  // A hub's history stays in its channel whatever else changes.
  const go = (next: HistoryParams) => {
    const s = historySearch({ ...next, ...(p.channel ? { channel: p.channel } : {}) });
    router.replace(s ? `${pathname}?${s}` : pathname, { scroll: false });
  };
  const win: HistoryWindow | null = data ? { from_ms: data.from_ms, to_ms: data.to_ms } : null;
  const toWindow = (w: HistoryWindow) => go({ from: w.from_ms, to: w.to_ms, ...(p.q ? { q: p.q } : {}) });
  const closer = data && win ? closerWindow(data.holds, win, data.now_ms) : null;

  return (
    <ChannelScope channel={p.channel}>
      <div className="mx-auto max-w-[100rem] px-4 py-5 sm:px-6">
        <h1 className="flex items-center gap-2 text-lg font-semibold tracking-tight">Fleet history {p.channel ? <ChannelChip channel={p.channel} /> : null}</h1>
        <p className="mt-1 max-w-4xl text-sm text-zinc-600 dark:text-zinc-400">
          Who held which order, from its claim to how it ended. Every bar is placed by when its files <em>arrived here</em>, the one clock
          all rows share; each writer&apos;s own clock is shown beside it, never used to place or order anything.
        </p>
        <Controls params={p} win={win} range={data?.range ?? null} fit={data ? fitWords(data) : null} go={go} toWindow={toWindow} />
        {q.isPending ? (
          <Loading what="the history" />
        ) : q.isError && !data ? (
          <QueryError error={q.error} what="the history" retry={() => void q.refetch()} pick={(c) => `/history?${historySearch({ ...p, channel: c })}`} />
        ) : data && win ? (
          <>
            {q.isError ? (
              <p role="alert" className="mt-2 text-sm text-red-800 dark:text-red-300">
                {q.error.message}
              </p>
            ) : null}
            <p className="mt-3 text-sm text-zinc-700 dark:text-zinc-300" data-history-count>
              {data.total === 0
                ? 'No hold in this window.'
                : `${data.total.toLocaleString('en')} ${data.total === 1 ? 'hold' : 'holds'} of ${data.agents.length} ${data.agents.length === 1 ? 'agent' : 'agents'} from ${utcClock(win.from_ms, { date: true })} to ${utcClock(win.to_ms, { date: true })} UTC (${formatDuration(win.to_ms - win.from_ms)}).`}
              {data.total > data.holds.length ? ` The first ${data.holds.length.toLocaleString('en')} by claim arrival are drawn: narrow the window or the query to see the rest; the numbers count them all.` : ''}
            </p>
            {closer ? (
              <p className="mt-2 flex flex-wrap items-center gap-2 text-sm text-zinc-700 dark:text-zinc-300" data-closer-window>
                Every hold here began in the last {formatDuration(closer.to_ms - closer.from_ms)}, squeezed at the right edge.
                <button type="button" className={button} onClick={() => toWindow(closer)}>
                  Show just that
                </button>
              </p>
            ) : null}
            <Legend />
            <section aria-label="Holds by agent" className="mt-3">
              <Swimlanes
                agents={data.agents}
                holds={data.holds}
                acts={data.acts}
                window={win}
                nowMs={now || data.now_ms}
                onWindow={toWindow}
                zoom={(f) => zoomWindow(win, f)}
                pan={(f) => panWindow(win, f)}
              />
            </section>
            <FleetNumbersPanel fleet={data.fleet} staleAfterMs={data.stale_after_ms} />
            <AgentNumbersTable agents={data.agents} />
          </>
        ) : null}
      </div>
    </ChannelScope>
  );
}

function Controls({
  params: p,
  win,
  range,
  fit,
  go,
  toWindow,
}: {
  params: HistoryParams;
  win: HistoryWindow | null;
  /** The named range in force (the answer's, fitted or asked for), or null. */
  range: HistoryParams['range'] | null;
  /** Why the window was fitted, or null when it was asked for. */
  fit: string | null;
  go: (p: HistoryParams) => void;
  toWindow: (w: HistoryWindow) => void;
}) {
  const [text, setText] = useState(p.q ?? '');
  const [custom, setCustom] = useState(false);
  const custom0 = p.from !== undefined || custom;
  const withQ = (x: HistoryParams): HistoryParams => ({ ...x, ...(p.q ? { q: p.q } : {}) });
  const submitQuery = (e: FormEvent) => {
    e.preventDefault();
    const t = text.trim();
    go({ ...(p.from !== undefined && p.to !== undefined ? { from: p.from, to: p.to } : p.range ? { range: p.range } : {}), ...(t ? { q: t } : {}) });
  };
  const submitCustom = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const field = (k: string) => {
      const v = f.get(k);
      return typeof v === 'string' ? Date.parse(`${v}:00Z`) : Number.NaN;
    };
    const from = field('from');
    const to = field('to');
    if (Number.isFinite(from) && Number.isFinite(to) && from < to) go(withQ({ from, to }));
  };
  const span = win ? win.to_ms - win.from_ms : 0;
  const fitting = !custom0 && p.range === undefined;
  return (
    <div className="mt-3 flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2" role="group" aria-label="Window">
        {RANGE_NAMES.map((r) => {
          const on = !custom0 && (p.range ?? range) === r;
          return (
            <button key={r} type="button" className={`${button} ${on ? 'bg-zinc-200 dark:bg-zinc-700' : ''}`} aria-pressed={on} onClick={() => (setCustom(false), go(withQ({ range: r })))}>
              {RANGE_LABEL[r]}
            </button>
          );
        })}
        <button type="button" className={`${button} ${custom0 ? 'bg-zinc-200 dark:bg-zinc-700' : ''}`} aria-pressed={custom0} onClick={() => setCustom(true)}>
          Custom
        </button>
        <button
          type="button"
          className={`${button} ${fitting ? 'bg-zinc-200 dark:bg-zinc-700' : ''}`}
          aria-pressed={fitting}
          onClick={() => (setCustom(false), go(withQ({})))}
          title="The shortest window in which every hold of the last 30 days begins"
        >
          Fit to holds
        </button>
        <span className="mx-1 h-5 w-px bg-zinc-300 max-sm:hidden dark:bg-zinc-700" aria-hidden="true" />
        <button type="button" className={button} disabled={!win || span <= MIN_WINDOW_MS} onClick={() => win && toWindow(zoomWindow(win, 0.5))} title="Zoom in (+)">
          Zoom in
        </button>
        <button type="button" className={button} disabled={!win || span >= MAX_WINDOW_MS} onClick={() => win && toWindow(zoomWindow(win, 2))} title="Zoom out (-)">
          Zoom out
        </button>
        <button type="button" className={button} disabled={!win} onClick={() => win && toWindow(panWindow(win, -0.25))} title="Earlier ([)">
          ◀ Earlier
        </button>
        <button type="button" className={button} disabled={!win} onClick={() => win && toWindow(panWindow(win, 0.25))} title="Later (])">
          Later ▶
        </button>
      </div>
      {fit && !custom0 ? (
        <p className="text-sm text-zinc-700 dark:text-zinc-300" data-window-fit>
          {fit}
        </p>
      ) : null}
      {custom0 && win ? (
        <form onSubmit={submitCustom} className="flex flex-wrap items-end gap-2" aria-label="Custom window">
          <label className="flex flex-col text-xs text-zinc-600 dark:text-zinc-400">
            From (UTC)
            <input name="from" type="datetime-local" defaultValue={utcInput(win.from_ms)} className={control} key={`f${win.from_ms}`} required />
          </label>
          <label className="flex flex-col text-xs text-zinc-600 dark:text-zinc-400">
            To (UTC)
            <input name="to" type="datetime-local" defaultValue={utcInput(win.to_ms)} className={control} key={`t${win.to_ms}`} required />
          </label>
          <button type="submit" className={button}>
            Show
          </button>
        </form>
      ) : null}
      <form onSubmit={submitQuery} className="flex max-w-3xl flex-wrap items-center gap-2" role="search">
        <label htmlFor="history-q" className="text-sm font-medium text-zinc-700 dark:text-zinc-300">
          Filter
        </label>
        <input
          id="history-q"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="agent:fang project:atlas -state:done t1"
          className={`${control} min-w-0 flex-1 font-mono`}
          spellCheck={false}
          autoComplete="off"
          aria-describedby="history-q-hint"
        />
        <button type="submit" className={button}>
          Apply
        </button>
        <p id="history-q-hint" className="basis-full text-xs text-zinc-500 dark:text-zinc-400">
          The board&apos;s query language: <code>agent:</code> (whose hold), <code>project:</code>, <code>holder:</code>, <code>lane:</code>,{' '}
          <code>state:</code>, <code>flag:</code> (the order now), free words (order, agent, how it ended, reason); the window replaces <code>age:</code>.
          Keys in the chart: arrows move along the bars, + and - zoom, [ and ] pan.
        </p>
      </form>
    </div>
  );
}
