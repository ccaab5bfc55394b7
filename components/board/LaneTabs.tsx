'use client';
import { useRef, type KeyboardEvent } from 'react';
import type { Lane, LanePage } from '@/lib/api/types';
import { LANE_HINT, LANE_TITLE, LANE_TONE } from '@/lib/ui/labels';
import { LANE_ACCENT } from '@/components/ui/tone';

/** The tab strip's keys (a horizontal tablist): from the selected tab's index to the next one's. */
const MOVES: Partial<Record<string, (i: number, n: number) => number>> = {
  ArrowRight: (i, n) => (i + 1) % n,
  ArrowLeft: (i, n) => (i - 1 + n) % n,
  Home: () => 0,
  End: (_i, n) => n - 1,
};

export const laneTabId = (lane: Lane) => `lane-tab-${lane}`;
export const lanePanelId = (lane: Lane) => `lane-panel-${lane}`;

/**
 * The board's lanes as tabs, for phone widths (hidden from `md` up, where every lane shows side
 * by side): two rows of three, each with its lane's count, so all six are seen without a sideways
 * scroll. Left and right arrows, Home and End move between them and select (the lane shows at once).
 */
export function LaneTabs({ lanes, selected, onSelect }: { lanes: readonly LanePage[]; selected: Lane; onSelect: (lane: Lane) => void }) {
  const listRef = useRef<HTMLDivElement>(null);
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const move = MOVES[e.key];
    if (!move) return; // any other key is not the tab strip's
    const lane = lanes[move(lanes.findIndex((l) => l.lane === selected), lanes.length)]?.lane;
    if (!lane) return;
    e.preventDefault();
    onSelect(lane);
    listRef.current?.querySelector<HTMLElement>(`#${laneTabId(lane)}`)?.focus();
  };

  return (
    <div ref={listRef} role="tablist" aria-label="Lanes" className="grid grid-cols-3 gap-1.5 md:hidden" onKeyDown={onKey}>
      {lanes.map((page) => {
        const on = page.lane === selected;
        const accent = LANE_ACCENT[LANE_TONE[page.lane]];
        return (
          <button
            key={page.lane}
            type="button"
            role="tab"
            id={laneTabId(page.lane)}
            aria-selected={on}
            aria-controls={lanePanelId(page.lane)}
            tabIndex={on ? 0 : -1}
            aria-label={`${LANE_TITLE[page.lane]}, ${page.count.toLocaleString('en')} ${page.count === 1 ? 'order' : 'orders'}`}
            title={LANE_HINT[page.lane]}
            data-lane-tab={page.lane}
            onClick={() => onSelect(page.lane)}
            className={`flex min-h-11 items-center justify-between gap-1 rounded-md border px-2 py-1 text-left text-[13px] leading-tight font-medium ${
              on
                ? `border-t-[3px] border-zinc-400 bg-white font-semibold text-zinc-950 shadow-sm dark:border-zinc-500 dark:bg-zinc-800 dark:text-white ${accent.rule}`
                : 'border-zinc-200 bg-zinc-50 text-zinc-700 dark:border-zinc-800 dark:bg-zinc-900/60 dark:text-zinc-300'
            }`}
          >
            <span className="min-w-0">{LANE_TITLE[page.lane]}</span>
            <span
              data-tab-count={page.count}
              className={`shrink-0 rounded-full px-1.5 py-px text-xs font-semibold tabular-nums ${page.count > 0 ? accent.count : 'bg-zinc-200/60 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-400'}`}
            >
              {page.count.toLocaleString('en')}
            </span>
          </button>
        );
      })}
    </div>
  );
}
