'use client';
import { usePathname, useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { BoardResponse, HubBoardResponse, Lane as LaneName } from '@/lib/api/types';
import { filtersToParams, hasFilters, parseFilters, useAgents, useBoard } from '@/lib/client/api';
import { useServerNow } from '@/lib/client/clock';
import { useHydrated } from '@/lib/client/hydrated';
import { PHONE_QUERY, useMediaQuery } from '@/lib/client/media';
import { LANES } from '@/lib/ledger/derive';
import { DEFAULT_STALE_AFTER_MS } from '@/lib/ledger/stale-after';
import { laneFromParams, withLane } from '@/lib/ui/lane-param';
import { waitingWords } from '@/lib/ui/labels';
import { ChannelHealth } from './ChannelHealth';
import { Filters } from './Filters';
import { Lane } from './Lane';
import { LaneTabs, laneTabId } from './LaneTabs';
import { ItemLink, PageLink } from '@/components/ui/links';
import type { WhyContext } from '@/lib/ui/why';

/** The board the page was rendered with on the server, for the filters whose query string is `key`. */
export interface BoardInitial {
  readonly key: string;
  readonly data: BoardResponse;
}

interface FocusPos {
  readonly lane: LaneName;
  /** The card's index in its lane; -1: the lane itself (on a phone, its tab), before its first card. */
  readonly index: number;
  /** Moved by j/k/h/l (the lane then focuses the card and brings it into view), not by a focus inside the card. */
  readonly byKey?: boolean;
}

/**
 * The board: lanes as columns, Needs attention and Stale leftmost, counts in the headers, each
 * card saying why it is where it is. Below `md` (a phone) one lane at a time, the lanes as tabs
 * with their counts, Needs attention first, the lane shown kept in the URL (`?lane=stale`).
 * Keyboard: `/` search, `j`/`k` next/previous card, `h`/`l` previous/next lane (on a phone the
 * lane's tab follows), Enter opens the focused order, Escape leaves the search box.
 */
export function Board({ initial }: { initial?: BoardInitial } = {}) {
  const params = useSearchParams();
  const pathname = usePathname();
  const shownLane = laneFromParams(params);
  const phone = useMediaQuery(PHONE_QUERY);
  // The browser's own history call (Next.js keeps useSearchParams in step; the state must be
  // null, as Next.js takes a call carrying its own state for one of its own and does not sync): a
  // tab shows at once, with no round trip to the server, and replaces rather than stacks entries.
  const showLane = useCallback(
    (lane: LaneName) => {
      const qs = withLane(window.location.search, lane);
      window.history.replaceState(null, '', qs ? `${pathname}?${qs}` : pathname);
    },
    [pathname],
  );
  const filters = useMemo(() => parseFilters(params), [params]);
  const filterKey = filtersToParams(filters).toString();
  // The server's board for the filters the page was rendered with; not for filters changed since.
  const board = useBoard(filters, initial && initial.key === filterKey ? initial.data : undefined);
  const agents = useAgents();
  const now = useServerNow(board.data?.now_ms, board.dataUpdatedAt);
  const hydrated = useHydrated();
  const searchRef = useRef<HTMLInputElement>(null);

  const lastSeen = useMemo(() => {
    const m = new Map<string, number | null>();
    for (const a of agents.data?.agents ?? []) m.set(a.name, a.last_arrival_ms);
    return m;
  }, [agents.data]);
  const ctx: WhyContext = useMemo(
    () => ({ nowMs: now, staleAfterMs: board.data?.stale_after_ms ?? DEFAULT_STALE_AFTER_MS, lastSeenMs: (a: string) => lastSeen.get(a) }),
    [now, board.data?.stale_after_ms, lastSeen],
  );

  // ---- keyboard: / j k h l -------------------------------------------------------------
  const [focus, setFocus] = useState<FocusPos | null>(null);
  const loaded = useRef(new Map<LaneName, number>());
  const onLoaded = useCallback((lane: LaneName, n: number) => {
    loaded.current.set(lane, n);
  }, []);
  // Several channels served (a hub's answer): each card shows its channel; the channel picker, `channel:` completion and each channel's state show.
  const hubData = (board.data as Partial<HubBoardResponse> | undefined)?.hub === true ? (board.data as HubBoardResponse) : null;
  const hub = hubData !== null;
  const channelNames = useMemo(() => hubData?.channels.filter((c) => c.state === 'served').map((c) => c.name) ?? [], [hubData]);
  const laneOrder = useMemo(() => (board.data?.lanes ?? []).map((l) => l.lane), [board.data]);

  const phoneRef = useRef(phone);
  const shownRef = useRef(shownLane);
  useEffect(() => {
    phoneRef.current = phone;
    shownRef.current = shownLane;
  }, [phone, shownLane]);
  useEffect(() => {
    const count = (l: LaneName) => loaded.current.get(l) ?? 0;
    const nonEmpty = () => laneOrder.filter((l) => count(l) > 0);
    const move = (dir: 1 | -1, byLane: boolean) =>
      setFocus((cur) => {
        const lanes = nonEmpty();
        if (lanes.length === 0) return null;
        if (!cur || !lanes.includes(cur.lane)) {
          // On a phone, from the lane shown.
          const start = phoneRef.current && lanes.includes(shownRef.current) ? shownRef.current : lanes[0]!;
          return { lane: start, index: 0, byKey: true };
        }
        const li = lanes.indexOf(cur.lane);
        if (byLane) {
          const next = lanes[li + dir];
          if (!next) return cur;
          // On a phone the lane's tab takes the focus (the lane it showed is hidden): j then goes to its first card.
          return { lane: next, index: phoneRef.current ? -1 : Math.min(Math.max(cur.index, 0), count(next) - 1), byKey: true };
        }
        const index = cur.index + dir;
        if (index >= 0 && index < count(cur.lane)) return { lane: cur.lane, index, byKey: true };
        const next = lanes[li + dir];
        if (!next) return cur;
        return { lane: next, index: dir === 1 ? 0 : count(next) - 1, byKey: true };
      });
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.metaKey || e.ctrlKey || e.altKey) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable)) return;
      switch (e.key) {
        case '/':
          e.preventDefault();
          searchRef.current?.focus();
          searchRef.current?.select();
          break;
        case 'j':
          e.preventDefault();
          move(1, false);
          break;
        case 'k':
          e.preventDefault();
          move(-1, false);
          break;
        case 'l':
          e.preventDefault();
          move(1, true);
          break;
        case 'h':
          e.preventDefault();
          move(-1, true);
          break;
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [laneOrder]);

  // On a phone, h/l (or j/k past a lane's end) to another lane shows that lane's tab.
  useEffect(() => {
    if (!phone || !focus?.byKey) return;
    if (focus.lane !== shownLane) showLane(focus.lane);
    if (focus.index < 0) document.getElementById(laneTabId(focus.lane))?.focus();
  }, [phone, focus, shownLane, showLane]);
  const onSelectTab = (lane: LaneName) => {
    // j then goes to the tab's lane's first card.
    setFocus({ lane, index: -1 });
    showLane(lane);
  };

  // ---- title: what needs a human, in the tab -----------------------------------------
  const urgent = useMemo(() => {
    const by = new Map(board.data?.lanes.map((l) => [l.lane, l.count]) ?? []);
    return { attention: by.get('attention') ?? 0, stale: by.get('stale') ?? 0 };
  }, [board.data]);
  useEffect(() => {
    const n = urgent.attention + urgent.stale;
    document.title = `${n > 0 ? `(${n}) ` : ''}Board · claimboard`;
  }, [urgent]);

  if (board.isPending) return <BoardSkeleton />;
  if (board.isError && !board.data) {
    // A query the server cannot read (400): the filter row with its reason, not a failure to load.
    if ('status' in board.error && board.error.status === 400) {
      return (
        <div className="flex flex-col gap-3 px-4 pt-3 pb-4">
          <h1 className="text-lg font-semibold tracking-tight">Board</h1>
          <Filters filters={filters} agents={[]} searchRef={searchRef} boardShown={false} />
          <p role="alert" className="text-sm text-zinc-700 dark:text-zinc-300">
            No board for this query. The server says: {board.error.message}.
          </p>
        </div>
      );
    }
    return (
      <div role="alert" className="m-4 rounded-md border border-red-300 bg-red-50 p-4 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
        <p className="font-semibold">The board could not be loaded.</p>
        <p className="mt-1">{board.error.message}. It retries by itself; the channel folder is untouched.</p>
        <button type="button" onClick={() => void board.refetch()} className="mt-2 underline">
          Retry now
        </button>
      </div>
    );
  }
  const data = board.data;
  const total = data.lanes.reduce((n, l) => n + l.count, 0);
  const lanes = [...data.lanes].sort((a, b) => LANES.indexOf(a.lane) - LANES.indexOf(b.lane));

  return (
    // Disabled until the page has hydrated: the board arrives rendered (app/page.tsx), and a control
    // used before its handlers exist would lose the input (a query typed, a tab tapped).
    <fieldset disabled={!hydrated} data-hydrated={hydrated ? 'yes' : 'no'} className="m-0 flex min-w-0 flex-col gap-3 border-0 px-4 pt-3 pb-4">
      <div className="flex flex-wrap items-center justify-between gap-x-6 gap-y-2">
        <div className="flex items-baseline gap-3">
          <h1 className="text-lg font-semibold tracking-tight">Board</h1>
          <p className="text-sm text-zinc-600 dark:text-zinc-400" aria-live="polite">
            {summary(urgent.attention, urgent.stale, total, hasFilters(filters))}
            {data.problem_count > 0 ? (
              <>
                {' · '}
                <PageLink href="/problems" className="text-red-700 underline underline-offset-2 dark:text-red-300">
                  {data.problem_count} {data.problem_count === 1 ? 'problem' : 'problems'} in the folder
                </PageLink>
              </>
            ) : null}
            {board.isError ? <span className="text-red-700 dark:text-red-300"> · refresh failed, showing the last board</span> : null}
          </p>
        </div>
        <p className="hidden text-xs text-zinc-500 md:block dark:text-zinc-400">
          <Kbd>/</Kbd> search · <Kbd>j</Kbd> <Kbd>k</Kbd> move · <Kbd>h</Kbd> <Kbd>l</Kbd> lanes · <Kbd>Enter</Kbd> open
        </p>
      </div>
      {hubData ? <ChannelHealth channels={hubData.channels} health={hubData.channel_health} /> : null}
      {data.key_changes.length > 0 ? (
        <div role="alert" className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200">
          <span className="font-semibold">Key changed in the folder: </span>
          {data.key_changes.map((n, i) => (
            <span key={n}>
              {i > 0 ? ', ' : ''}
              <ItemLink href={`/agents/${encodeURIComponent(n)}`} className="underline underline-offset-2">
                {n}
              </ItemLink>
            </span>
          ))}
          . Their records still verify against the pinned key; nothing trusts the new key until an operator re-pins it on this machine
          (<code className="font-mono text-[13px]">npx claimboard repin</code>), never from the page.
        </div>
      ) : null}
      <Filters filters={filters} agents={data.agents} searchRef={searchRef} channels={channelNames} />
      <LaneTabs lanes={lanes} selected={shownLane} onSelect={onSelectTab} />
      <div className="-mx-4 flex flex-col gap-3 overflow-x-auto px-4 pb-2" aria-busy={board.isFetching}>
        {/* From md up, Needs attention spans the width above the other lanes, its cards side by side: seen at a glance. */}
        {[lanes.filter((l) => l.lane === 'attention'), lanes.filter((l) => l.lane !== 'attention')].map((row, ri) => (
          <div key={ri} className="flex items-start gap-3">
          {row.map((page) => (
            <Lane
              key={`${page.lane}?${filterKey}`}
              page={page}
              filters={filters}
              ctx={ctx}
              focusIndex={focus?.lane === page.lane && focus.byKey ? focus.index : null}
              onFocusCard={(index) => setFocus((cur) => (cur?.lane === page.lane && cur.index === index ? cur : { lane: page.lane, index }))}
              onLoaded={(n) => onLoaded(page.lane, n)}
              phone={{ shown: page.lane === shownLane, asTabPanel: phone }}
              showChannel={hub}
            />
          ))}
          </div>
        ))}
      </div>
    </fieldset>
  );
}

function summary(attention: number, stale: number, total: number, filtered: boolean): string {
  const parts = waitingWords(attention, stale);
  if (attention === 0) parts.unshift('nothing needs attention');
  parts.push(`${total.toLocaleString('en')} ${total === 1 ? 'order' : 'orders'}${filtered ? ' match the filters' : ''}`);
  return parts.join(' · ');
}

function Kbd({ children }: { children: React.ReactNode }) {
  return (
    <kbd className="rounded border border-zinc-300 bg-zinc-50 px-1 font-mono text-[11px] text-zinc-700 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-300">
      {children}
    </kbd>
  );
}

export function BoardSkeleton() {
  return (
    <div className="flex flex-col gap-3 px-4 pt-3" aria-busy="true">
      <p role="status" className="text-sm text-zinc-500 dark:text-zinc-400">
        Loading the board…
      </p>
      <div className="flex gap-3 overflow-hidden">
        {LANES.map((l) => (
          <div key={l} className="h-64 min-w-[13.5rem] flex-1 basis-0 animate-pulse rounded-lg border border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-900/40" />
        ))}
      </div>
    </div>
  );
}
