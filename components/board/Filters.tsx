'use client';
import { usePathname, useRouter } from 'next/navigation';
import { useEffect, useRef, useState, type RefObject } from 'react';
import type { BoardFilters } from '@/lib/api/types';
import { filtersToParams, hasFilters } from '@/lib/client/api';
import { ATTENTION_FLAGS, FLAG_LABEL, ORDER_STATES, STATE_LABEL } from '@/lib/ui/labels';

const control =
  'h-8 rounded-md border border-zinc-300 bg-white px-2 text-sm text-zinc-900 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100';

/**
 * Filters of the board, kept in the URL (`?agent=fang&state=stale&flag=double_run&q=build`)
 * with `router.replace`, so a filtered board can be shared and survives reloads.
 */
export function Filters({
  filters,
  agents,
  searchRef,
}: {
  filters: BoardFilters;
  agents: readonly string[];
  searchRef: RefObject<HTMLInputElement | null>;
}) {
  const router = useRouter();
  const pathname = usePathname();
  const [text, setText] = useState(filters.q ?? '');
  const latest = useRef(filters);
  useEffect(() => {
    latest.current = filters;
  });

  const apply = (next: BoardFilters) => {
    const qs = filtersToParams(next).toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  };

  // Typing updates the URL after a short pause.
  useEffect(() => {
    const q = text.trim();
    if (q === (latest.current.q ?? '')) return;
    const t = setTimeout(() => apply({ ...latest.current, q: q || undefined }), 250);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- typing alone arms the timer (a URL change from elsewhere must not re-send the text); apply is remade every render and the filters are read at fire time through `latest`
  }, [text]);

  // The URL changed from elsewhere (back, clear): follow it.
  useEffect(() => {
    setText((cur) => (cur.trim() === (filters.q ?? '') ? cur : (filters.q ?? '')));
  }, [filters.q]);

  const agentOptions = filters.agent && !agents.includes(filters.agent) ? [filters.agent, ...agents] : agents;

  return (
    <form
      role="search"
      aria-label="Filter the board"
      className="flex flex-wrap items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        apply({ ...filters, q: text.trim() || undefined });
      }}
    >
      <label className="sr-only" htmlFor="board-search">
        Search orders
      </label>
      <input
        id="board-search"
        ref={searchRef}
        type="search"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.currentTarget.blur();
          }
        }}
        placeholder="Search id, holder, project, reason   ( / )"
        autoComplete="off"
        spellCheck={false}
        className={`${control} w-72 max-w-full placeholder:text-zinc-500 dark:placeholder:text-zinc-500`}
      />
      <label className="sr-only" htmlFor="filter-agent">
        Agent
      </label>
      <select
        id="filter-agent"
        value={filters.agent ?? ''}
        onChange={(e) => apply({ ...filters, agent: e.target.value || undefined })}
        className={control}
      >
        <option value="">any agent</option>
        {agentOptions.map((a) => (
          <option key={a} value={a}>
            {a}
          </option>
        ))}
      </select>
      <label className="sr-only" htmlFor="filter-state">
        State
      </label>
      <select
        id="filter-state"
        value={filters.state ?? ''}
        onChange={(e) => apply({ ...filters, state: (e.target.value || undefined) as BoardFilters['state'] })}
        className={control}
      >
        <option value="">any state</option>
        {ORDER_STATES.map((s) => (
          <option key={s} value={s}>
            {STATE_LABEL[s]}
          </option>
        ))}
      </select>
      <label className="sr-only" htmlFor="filter-flag">
        Flag
      </label>
      <select
        id="filter-flag"
        value={filters.flag ?? ''}
        onChange={(e) => apply({ ...filters, flag: (e.target.value || undefined) as BoardFilters['flag'] })}
        className={control}
      >
        <option value="">any flag</option>
        {ATTENTION_FLAGS.map((f) => (
          <option key={f} value={f}>
            {FLAG_LABEL[f]}
          </option>
        ))}
      </select>
      {hasFilters(filters) ? (
        <button
          type="button"
          onClick={() => {
            setText('');
            apply({});
          }}
          className="h-8 rounded-md px-2 text-sm text-sky-700 underline-offset-2 hover:underline dark:text-sky-400"
        >
          Clear filters
        </button>
      ) : null}
    </form>
  );
}
