'use client';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { BoardFilters, Card, LanePage } from '@/lib/api/types';
import { hasFilters, useLanePage } from '@/lib/client/api';
import { LANE_HINT, LANE_TITLE, LANE_TONE } from '@/lib/ui/labels';
import { LANE_ACCENT } from '@/components/ui/tone';
import { ACTION_LANES, LaneSelectionBar } from '@/components/actions/LaneSelection';
import { lanePanelId, laneTabId } from './LaneTabs';
import { OrderCard } from './OrderCard';
import { cardKey } from '@/lib/ui/card-channel';
import { ADVISORY_NOTE, type WhyContext } from '@/lib/ui/why';

/** Above this many loaded cards a lane renders only what is on screen. */
const VIRTUALIZE_AT = 80;

export interface LaneProps {
  page: LanePage;
  filters: BoardFilters;
  ctx: WhyContext;
  /** Index of the card j/k/h/l moved the focus to in this lane (focused and scrolled into view), or null. */
  focusIndex: number | null;
  /** A card of this lane got focus (keyboard, Tab or click). */
  onFocusCard: (index: number) => void;
  /** How many cards this lane has loaded (for j/k across lanes). */
  onLoaded: (count: number) => void;
  /**
   * At phone widths (one lane at a time, LaneTabs): whether this lane is the one shown (the
   * others are hidden below `md` by CSS, so the first paint is right), and whether the page is
   * at phone width now (then the lane is the tab panel of its tab).
   */
  phone: { readonly shown: boolean; readonly asTabPanel: boolean };
  /** Several channels are served: each card shows its channel. */
  showChannel?: boolean;
}

/**
 * One lane: header with its count, then its cards. The first page comes with the board; "Load
 * more" (or scrolling near the end) fetches the next pages by keyset cursor. Long lanes are
 * virtualized.
 */
export function Lane({ page, filters, ctx, focusIndex, onFocusCard, onLoaded, phone, showChannel = false }: LaneProps) {
  const tone = LANE_TONE[page.lane];
  const accent = LANE_ACCENT[tone];
  const [wantMore, setWantMore] = useState(false);
  // How many cards the later pages held at the last commit: if the first page changes, they are
  // fetched again as one page of that many (useLanePage).
  const moreLoaded = useRef(0);
  const more = useLanePage(page.lane, filters, page.next_cursor, wantMore, moreLoaded.current);

  const cards: Card[] = useMemo(() => {
    const seen = new Set<string>();
    const out: Card[] = [];
    // Later pages only while the lane has more than its first (the pages of a lane that shrank are gone).
    const later = page.next_cursor !== null ? (more.data?.pages.map((p) => p.cards) ?? []) : [];
    const pages = [page.cards, ...later];
    for (const list of pages) {
      for (const c of list) {
        if (seen.has(cardKey(c))) continue;
        seen.add(cardKey(c));
        out.push(c);
      }
    }
    return out;
  }, [page.cards, page.next_cursor, more.data]);

  const hasMore = page.next_cursor !== null && (!more.data || more.hasNextPage);
  const loadMore = () => {
    if (!wantMore) setWantMore(true);
    else if (more.hasNextPage && !more.isFetchingNextPage) void more.fetchNextPage();
  };
  const loading = more.isFetching || more.isFetchingNextPage;

  useEffect(() => {
    onLoaded(cards.length);
    moreLoaded.current = cards.length - page.cards.length;
  }, [cards.length, page.cards.length, onLoaded]);

  const scrollRef = useRef<HTMLDivElement>(null);
  // A lane hidden at phone width (another tab shown) loses its scroll position: it is put back
  // when the lane shows again, before paint (a virtualized lane then renders the rows there).
  const scrollTop = useRef(0);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!phone.shown || !el) return;
    if (el.scrollTop !== scrollTop.current) el.scrollTop = scrollTop.current;
    // The virtualizer learns the offset from scroll events, which come later and may not come at
    // all when the position is unchanged: told now, it draws the rows of where the panel is.
    el.dispatchEvent(new Event('scroll'));
  }, [phone.shown]);
  const virtual = cards.length > VIRTUALIZE_AT;
  const v = useVirtualizer({
    count: cards.length,
    getScrollElement: () => scrollRef.current,
    // Read again whenever the virtualizer is switched back on (the lane went under 80 cards while
    // its later pages were fetched again): from 0 it would draw the top rows at the panel's end.
    initialOffset: () => scrollRef.current?.scrollTop ?? 0,
    estimateSize: () => 120,
    overscan: 6,
    gap: 8,
    enabled: virtual,
    useFlushSync: false,
    getItemKey: (i) => (cards[i] ? cardKey(cards[i]) : i),
  });
  // While hidden at phone width its rows are not rendered: a hidden row would be measured as 0 px
  // high, and the lane would come back at the wrong place when shown again.
  const parked = phone.asTabPanel && !phone.shown;
  const items = virtual && !parked ? v.getVirtualItems() : [];
  const lastVisible = items[items.length - 1]?.index ?? -1;

  // Scrolling near the end of a long lane loads the next page.
  useEffect(() => {
    if (virtual && hasMore && !loading && lastVisible >= cards.length - 5) loadMore();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- loadMore is remade every render: the effect runs when what it reads (scroll position, paging state) changes
  }, [virtual, hasMore, loading, lastVisible, cards.length]);

  // Keyboard focus (j/k): bring the card into view, then focus its link; a lane hidden at phone
  // width (its tab not shown yet) waits until it shows, as a hidden link cannot take focus.
  useEffect(() => {
    if (focusIndex === null || focusIndex < 0 || parked) return;
    if (virtual) v.scrollToIndex(focusIndex, { align: 'auto' });
    let tries = 0;
    let raf = 0;
    const tick = () => {
      const el = scrollRef.current?.querySelector<HTMLElement>(`[data-card-index="${focusIndex}"] [data-card-link]`);
      if (el) {
        if (document.activeElement !== el) el.focus({ preventScroll: virtual });
        if (!virtual) el.closest('li')?.scrollIntoView({ block: 'nearest' });
      } else if (tries++ < 10) raf = requestAnimationFrame(tick);
    };
    raf = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(raf);
  }, [focusIndex, virtual, v, parked]);

  const headingId = `lane-${page.lane}`;
  // Needs attention takes the board's width from md up (Board.tsx), its cards in columns.
  const wide = page.lane === 'attention';
  const renderCard = (card: Card, index: number) => (
    <OrderCard
      card={card}
      ctx={ctx}
      onFocusCard={() => onFocusCard(index)}
      inStaleLane={page.lane === 'stale'}
      showChannel={showChannel}
      actionsLane={ACTION_LANES.has(page.lane) ? page.lane : undefined}
    />
  );

  return (
    <section
      {...(phone.asTabPanel ? { role: 'tabpanel', id: lanePanelId(page.lane), 'aria-labelledby': laneTabId(page.lane) } : { 'aria-labelledby': headingId })}
      data-lane={page.lane}
      className={`flex ${wide ? '' : 'max-w-[26rem]'} min-w-[13.5rem] flex-1 basis-0 flex-col rounded-lg border border-t-[3px] border-zinc-200 bg-zinc-50 max-md:w-full max-md:max-w-none max-md:min-w-0 max-md:flex-none dark:border-zinc-800 dark:bg-zinc-900/40 ${accent.rule} ${phone.shown ? '' : 'max-md:hidden'}`}
    >
      <header className="px-3 pt-2 pb-1.5" title={LANE_HINT[page.lane]}>
        <h2 id={headingId} className={`flex items-center justify-between text-sm font-semibold ${accent.title}`}>
          <span>{LANE_TITLE[page.lane]}</span>
          <span
            data-lane-count={page.count}
            className={`min-w-7 rounded-full px-2 py-px text-center text-xs font-semibold tabular-nums ${page.count > 0 ? accent.count : 'bg-zinc-200/60 text-zinc-500 dark:bg-zinc-800 dark:text-zinc-400'}`}
          >
            <span aria-hidden="true">{page.count.toLocaleString('en')}</span>
            <span className="sr-only">{`${page.count.toLocaleString('en')} ${page.count === 1 ? 'order' : 'orders'}`}</span>
          </span>
        </h2>
        {page.lane === 'stale' ? (
          <p className="mt-0.5 text-xs text-amber-800 dark:text-amber-300/90">{ADVISORY_NOTE}</p>
        ) : null}
      </header>
      <LaneSelectionBar page={page} loaded={cards} filters={filters} />
      <div
        ref={scrollRef}
        onScroll={(e) => {
          // A hidden panel reads 0: that is not where the reader left it.
          if (e.currentTarget.clientHeight > 0) scrollTop.current = e.currentTarget.scrollTop;
        }}
        // A lane scrolls inside itself only where it must: a virtualized one, or a column of the
        // row from md up; Needs attention and a phone's lane grow with the page (no box inside a box).
        className={`min-h-16 px-2 pb-2 ${virtual ? 'max-h-[calc(100dvh-12.5rem)] overflow-y-auto' : wide ? '' : 'md:max-h-[calc(100dvh-12.5rem)] md:overflow-y-auto'}`}
      >
        {cards.length === 0 ? (
          page.lane === 'attention' ? (
            <p className="px-1 py-3 text-sm font-medium text-emerald-800 dark:text-emerald-300" data-lane-empty="">
              {hasFilters(filters) ? 'Nothing needs you among the orders that match the filters.' : 'Nothing needs you: no order is flagged.'}
            </p>
          ) : (
            <p className="px-1 py-3 text-xs text-zinc-500 dark:text-zinc-400" data-lane-empty="">
              Nothing here: {LANE_HINT[page.lane]}.
            </p>
          )
        ) : virtual ? (
          <ol className="relative" style={{ height: v.getTotalSize() }}>
            {items.map((item) => {
              const card = cards[item.index];
              if (!card) return null;
              return (
                <li
                  key={item.key}
                  data-index={item.index}
                  data-card-index={item.index}
                  ref={v.measureElement}
                  className="absolute top-0 left-0 w-full focus-within:z-10"
                  style={{ transform: `translateY(${item.start}px)` }}
                >
                  {renderCard(card, item.index)}
                </li>
              );
            })}
          </ol>
        ) : (
          <ol className={wide ? 'flex flex-col gap-2 md:grid md:grid-cols-[repeat(auto-fill,minmax(19rem,1fr))] md:items-start' : 'flex flex-col gap-2'}>
            {cards.map((card, i) => (
              <li key={cardKey(card)} data-card-index={i}>
                {renderCard(card, i)}
              </li>
            ))}
          </ol>
        )}
        {hasMore ? (
          <div className="pt-2">
            <button
              type="button"
              onClick={loadMore}
              disabled={loading}
              className="w-full rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-xs font-medium pointer-coarse:min-h-11 pointer-coarse:text-sm text-zinc-700 hover:bg-zinc-100 disabled:opacity-60 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200 dark:hover:bg-zinc-800"
            >
              {loading ? 'Loading…' : `Load more (${cards.length.toLocaleString('en')} of ${page.count.toLocaleString('en')} shown)`}
            </button>
            {more.isError ? (
              <p role="alert" className="mt-1 text-xs text-red-700 dark:text-red-300">
                Could not load more: {more.error.message}
              </p>
            ) : null}
          </div>
        ) : null}
      </div>
    </section>
  );
}
