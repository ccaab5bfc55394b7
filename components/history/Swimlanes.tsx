'use client';
/**
 * The fleet history's picture: one row per agent (grouped by role), time across on this machine's
 * arrival clock, each hold a bar from its claim's arrival to its ending's, coloured by how it
 * ended, its silences hatched over it, operator acts as marks; a bar links to its order. Drawn
 * with visx (plain SVG: rendered on the server first, no canvas, colours from Tailwind classes so
 * dark mode follows the page).
 *
 * Keyboard: the bars are one tab stop; ← → move along an agent's row, ↑ ↓ to the row above or
 * below, Home / End to a row's ends, Enter opens the order. + and - zoom, [ and ] pan.
 */
import { useRef, useState, type KeyboardEvent } from 'react';
import { AxisTop } from '@visx/axis';
import { scaleLinear } from '@visx/scale';
import type { HistoryAct, HistoryAgent, HoldEnding, HoldRow } from '@/lib/api/types';
import { HOLD_ENDING_LABEL } from '@/lib/ui/labels';
import { holdWords, packRows, timeTicks } from '@/lib/ui/history';
import type { HistoryWindow } from '@/lib/query/window';
import { clockDisagrees, clockOffsetSentence, utcClock, writerFull } from '@/lib/ui/time';
import { agentHref, orderHref } from '@/components/ui/links';
import { usePageChannel } from '@/components/ui/channel';
import { inChannel } from '@/lib/ui/card-channel';
import { useWidth } from '@/components/tuning/useWidth';

/** Each ending's bar colour, light and dark. */
export const ENDING_FILL: Record<HoldEnding, string> = {
  held: 'fill-sky-500 dark:fill-sky-400',
  finished: 'fill-emerald-600 dark:fill-emerald-500',
  released_self: 'fill-zinc-400 dark:fill-zinc-500',
  requeued: 'fill-amber-500 dark:fill-amber-400',
  retired: 'fill-violet-600 dark:fill-violet-400',
  gave_up: 'fill-red-600 dark:fill-red-500',
  superseded: 'fill-fuchsia-600 dark:fill-fuchsia-400',
  lost: 'fill-zinc-300 dark:fill-zinc-700',
};

const BAR_H = 14;
/** The narrowest a bar is drawn, px, and the room kept beside it. */
const MIN_BAR_PX = 3;
const BAR_ROOM_PX = 2;
const ROW_GAP = 4;
const MARK_H = 7;
const PAD = { top: MARK_H + 3, bottom: 4 };

/** The track's height for `rows` sub-rows. */
const trackHeight = (rows: number) => PAD.top + rows * BAR_H + (rows - 1) * ROW_GAP + PAD.bottom;

interface Bar {
  readonly key: string;
  readonly hold: HoldRow;
  readonly agentIndex: number;
}

export function Swimlanes({
  agents,
  holds,
  acts,
  window: w,
  nowMs,
  onWindow,
  zoom,
  pan,
}: {
  agents: readonly HistoryAgent[];
  holds: readonly HoldRow[];
  acts: readonly HistoryAct[];
  window: HistoryWindow;
  nowMs: number;
  onWindow: (w: HistoryWindow) => void;
  zoom: (factor: number) => HistoryWindow;
  pan: (fraction: number) => HistoryWindow;
}) {
  const channel = usePageChannel();
  const [ref, width] = useWidth<HTMLDivElement>(960);
  const [active, setActive] = useState<string | null>(null);
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const barEls = useRef(new Map<string, { focus(): void }>());
  const x = scaleLinear<number>({ domain: [w.from_ms, w.to_ms], range: [0, width], clamp: true });
  // A tick label ("Nov 29", "09:00") is about 40 px wide at 11 px.
  const ticks = timeTicks(w, Math.max(2, Math.floor(width / 64)));
  const minMs = ((w.to_ms - w.from_ms) / Math.max(1, width)) * (MIN_BAR_PX + BAR_ROOM_PX);

  const byAgent = new Map<string, HoldRow[]>();
  for (const h of holds) {
    const l = byAgent.get(h.agent);
    if (l) l.push(h);
    else byAgent.set(h.agent, [h]);
  }
  const rows = agents.map((a, i) => {
    const own = (byAgent.get(a.name) ?? []).slice().sort((p, q) => p.claimed_ms - q.claimed_ms || (p.order_id < q.order_id ? -1 : 1));
    return { agent: a, index: i, holds: own, packed: packRows(own, nowMs, minMs) };
  });
  const bars: Bar[][] = rows.map((r) => r.holds.map((hold) => ({ key: `${hold.order_id} ${hold.agent}`, hold, agentIndex: r.index })));
  const flat = bars.flat();
  const tabKey = focusKey !== null && flat.some((b) => b.key === focusKey) ? focusKey : (flat[0]?.key ?? null);
  const byKey = new Map(flat.map((b) => [b.key, b]));
  const activeHold = active !== null ? byKey.get(active)?.hold : undefined;

  const move = (from: Bar, e: KeyboardEvent) => {
    const row = bars[from.agentIndex] ?? [];
    const at = row.findIndex((b) => b.key === from.key);
    let next: Bar | undefined;
    if (e.key === 'ArrowRight') next = row[at + 1];
    else if (e.key === 'ArrowLeft') next = row[at - 1];
    else if (e.key === 'Home') next = row[0];
    else if (e.key === 'End') next = row[row.length - 1];
    else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      const step = e.key === 'ArrowDown' ? 1 : -1;
      for (let i = from.agentIndex + step; i >= 0 && i < bars.length && !next; i += step) {
        const other = bars[i] ?? [];
        // The bar of that row nearest in time.
        next = other.slice().sort((p, q) => Math.abs(p.hold.claimed_ms - from.hold.claimed_ms) - Math.abs(q.hold.claimed_ms - from.hold.claimed_ms))[0];
      }
    } else return;
    e.preventDefault();
    if (!next) return;
    setFocusKey(next.key);
    setActive(next.key);
    barEls.current.get(next.key)?.focus();
  };

  const onKey = (e: KeyboardEvent) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const next = e.key === '+' || e.key === '=' ? zoom(0.5) : e.key === '-' || e.key === '_' ? zoom(2) : e.key === '[' ? pan(-0.25) : e.key === ']' ? pan(0.25) : null;
    if (!next) return;
    e.preventDefault();
    onWindow(next);
  };

  const nowX = nowMs >= w.from_ms && nowMs <= w.to_ms ? x(nowMs) : null;
  const labelCol = 'md:grid md:grid-cols-[11rem_minmax(0,1fr)] md:gap-x-3';
  const actTitle = (a: HistoryAct) =>
    `${a.operator}: ${a.act}${a.order_id ? ` ${a.order_id}` : ''}${a.agent ? ` (${a.agent})` : ''}${a.detail ? `, ${a.detail}` : ''}${a.reason ? `: ${a.reason}` : ''}. Arrived here ${utcClock(a.arrival_ms, { date: true })} UTC; ${a.operator}'s clock ${writerFull(a.writer_time)}.`;
  const mark = (a: HistoryAct) => {
    const mx = x(a.arrival_ms);
    return (
      <a key={a.key} href={inChannel(`/activity${a.order_id ? `?order=${encodeURIComponent(a.order_id)}` : ''}`, channel)} aria-label={actTitle(a)} tabIndex={-1} data-act={a.act}>
        <title>{actTitle(a)}</title>
        <path d={`M ${mx - 4} 1 L ${mx + 4} 1 L ${mx} ${MARK_H + 1} Z`} className="fill-zinc-800 dark:fill-zinc-100" />
      </a>
    );
  };
  const nowLine = (h: number) => (nowX === null ? null : <line x1={nowX} x2={nowX} y1={0} y2={h} className="stroke-zinc-500 dark:stroke-zinc-400" strokeDasharray="3 3" aria-hidden="true" />);

  return (
    <div onKeyDown={onKey} data-history-chart>
      <div className={labelCol}>
        <div className="hidden text-xs text-zinc-500 md:block dark:text-zinc-400">UTC, this machine&apos;s clock</div>
        <div ref={ref} className="min-w-0">
          <svg width={width} height={24} viewBox={`0 0 ${width} 24`} className="block h-auto w-full overflow-visible" aria-hidden="true">
            <g className="text-zinc-600 dark:text-zinc-400">
              <AxisTop
                top={23}
                scale={x}
                tickValues={ticks.map((t) => t.ms)}
                tickFormat={(v) => ticks.find((t) => t.ms === Number(v))?.label ?? ''}
                stroke="currentColor"
                tickStroke="currentColor"
                tickLength={4}
                tickLabelProps={{ fill: 'currentColor', fontSize: 11, textAnchor: 'middle' }}
              />
            </g>
          </svg>
        </div>
      </div>

      <div className={`${labelCol} border-b border-zinc-200 py-1 dark:border-zinc-800`}>
        <div className="text-xs font-medium text-zinc-700 dark:text-zinc-300">Operator acts ({acts.length})</div>
        <svg width={width} height={MARK_H + 4} viewBox={`0 0 ${width} ${MARK_H + 4}`} className="block h-auto w-full" role="group" aria-label={`${acts.length} operator acts in the window`}>
          {nowLine(MARK_H + 4)}
          {acts.map(mark)}
        </svg>
      </div>

      {rows.map((r, i) => {
        const a = r.agent;
        const firstOfRole = i === 0 || rows[i - 1]?.agent.role !== a.role;
        const h = trackHeight(r.packed.rows);
        const orders = new Set(r.holds.map((x1) => x1.order_id));
        const rowActs = acts.filter((act) => act.agent === a.name || (act.order_id !== null && orders.has(act.order_id)));
        return (
          <div key={a.name}>
            {firstOfRole ? (
              <h3 className="mt-3 text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400" data-role={a.role}>
                {a.role}
              </h3>
            ) : null}
            <div className={`${labelCol} border-b border-zinc-100 py-1 dark:border-zinc-800/70`} data-agent-row={a.name}>
              <div className="min-w-0 text-sm">
                <a href={agentHref(a.name, channel)} className="font-medium underline decoration-zinc-300 underline-offset-2 dark:decoration-zinc-600">
                  {a.name}
                </a>
                <span className="ml-1.5 text-xs text-zinc-500 dark:text-zinc-400">
                  {r.holds.length} {r.holds.length === 1 ? 'hold' : 'holds'}
                  {a.retired ? ', retired' : ''}
                </span>
                {clockDisagrees(a.clock_offset_ms) ? (
                  <p className="text-xs text-amber-800 dark:text-amber-300" data-clock-note>
                    {clockOffsetSentence(a.clock_offset_ms)}
                  </p>
                ) : null}
              </div>
              <svg width={width} height={h} viewBox={`0 0 ${width} ${h}`} className="block h-auto w-full" role="group" aria-label={`${a.name}'s holds`}>
                {nowLine(h)}
                {rowActs.map(mark)}
                {(bars[r.index] ?? []).map((b, j) => {
                  const hold = b.hold;
                  const x0 = x(Math.max(hold.claimed_ms, w.from_ms));
                  const x1 = x(Math.min(hold.ended_ms ?? nowMs, w.to_ms));
                  const y = PAD.top + (r.packed.row[j] ?? 0) * (BAR_H + ROW_GAP);
                  const words = holdWords(hold, nowMs);
                  const barW = Math.max(MIN_BAR_PX, x1 - x0);
                  return (
                    <a
                      key={b.key}
                      href={orderHref(hold.order_id, channel)}
                      aria-label={words}
                      tabIndex={b.key === tabKey ? 0 : -1}
                      ref={(el) => {
                        if (el) barEls.current.set(b.key, el);
                        else barEls.current.delete(b.key);
                      }}
                      onKeyDown={(e) => move(b, e)}
                      onFocus={() => {
                        setFocusKey(b.key);
                        setActive(b.key);
                      }}
                      onMouseEnter={() => setActive(b.key)}
                      data-hold={`${hold.order_id}:${hold.agent}`}
                      data-ending={hold.ending}
                      className="group outline-none"
                    >
                      <title>{words}</title>
                      <rect x={x0} y={y} width={barW} height={BAR_H} rx={2} className={`${ENDING_FILL[hold.ending]} group-hover:opacity-80`} />
                      {hold.ending === 'lost' ? <rect x={x0} y={y} width={barW} height={BAR_H} rx={2} fill="none" className="stroke-zinc-500" strokeDasharray="3 2" /> : null}
                      {hold.silences.map((s) => {
                        const s0 = x(Math.max(s.from_ms, w.from_ms));
                        const s1 = x(Math.min(s.to_ms, w.to_ms));
                        return s1 > s0 ? <rect key={s.from_ms} x={s0} y={y + 3} width={Math.max(1, s1 - s0)} height={BAR_H - 6} className="fill-zinc-950/45 dark:fill-zinc-950/70" data-silence /> : null;
                      })}
                      <rect x={x0 - 2} y={y - 2} width={barW + 4} height={BAR_H + 4} rx={3} fill="none" className="stroke-transparent stroke-2 group-focus-visible:stroke-zinc-950 dark:group-focus-visible:stroke-white" />
                    </a>
                  );
                })}
              </svg>
            </div>
          </div>
        );
      })}

      <p className="mt-2 min-h-10 text-sm text-zinc-700 dark:text-zinc-300" aria-live="polite" data-hold-details>
        {activeHold ? holdWords(activeHold, nowMs) : 'Point at a bar, or tab to the bars and move with the arrow keys, to read a hold: both clocks, how it ended, its silences.'}
      </p>
    </div>
  );
}

/** The colours and what they mean; the hatch and the marks. */
export function Legend() {
  return (
    <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-700 dark:text-zinc-300" aria-label="Legend">
      {(Object.keys(ENDING_FILL) as HoldEnding[]).map((e) => (
        <li key={e} className="flex items-center gap-1.5">
          <svg width={14} height={10} aria-hidden="true">
            <rect width={14} height={10} rx={2} className={ENDING_FILL[e]} />
          </svg>
          {HOLD_ENDING_LABEL[e]}
        </li>
      ))}
      <li className="flex items-center gap-1.5">
        <svg width={14} height={10} aria-hidden="true">
          <rect width={14} height={10} rx={2} className="fill-sky-500 dark:fill-sky-400" />
          <rect y={2} width={14} height={6} className="fill-zinc-950/45 dark:fill-zinc-950/70" />
        </svg>
        silent beyond the stale threshold
      </li>
      <li className="flex items-center gap-1.5">
        <svg width={10} height={10} aria-hidden="true">
          <path d="M 1 1 L 9 1 L 5 8 Z" className="fill-zinc-800 dark:fill-zinc-100" />
        </svg>
        an operator act
      </li>
    </ul>
  );
}
