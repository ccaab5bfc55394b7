'use client';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { BoardFilters } from '@/lib/api/types';
import { useAgents } from '@/lib/client/api';
import { ATTENTION_FLAGS, ORDER_STATES } from '@/lib/ledger/card';
import { FLAG_LABEL, STATE_LABEL } from '@/lib/ui/labels';
import { parseQuery, printQuery, shortcutValue, withShortcut, type QueryTerm, type ShortcutKind } from '@/lib/query/query';
import { afterWrite, onUrlQuery, type PendingWrite } from '@/lib/ui/url-echoes';
import { QueryBar } from './QueryBar';
import { SavedViews } from './SavedViews';

const box = 'h-8 rounded-md border bg-white px-2 text-sm text-zinc-900 dark:bg-zinc-900 dark:text-zinc-100';
const control = `${box} border-zinc-300 dark:border-zinc-700`;

const NO_CHANNELS: readonly string[] = [];

/** The option a dropdown shows while the query names several values of its kind. */
const SEVERAL = '__several__';

/**
 * The board's filter row: one query (lib/query/query.ts) kept in the URL as `?q=` with
 * `router.replace` (other parameters, such as the phone's `?lane=`, kept), so a filtered board
 * can be shared and survives reloads. The dropdowns are shortcuts into the same query: they show
 * its one `agent:`, `state:` or `flag:` term and replace it; where several channels are served (a
 * hub) the channel picker comes first, "All channels" or one, over the query's `channel:` term
 * (on a phone, one more filter in the same row). A query that does not parse stays in
 * the bar with its reason below, and the URL keeps the last one that did. Saved views follow.
 */
export function Filters({
  filters,
  agents,
  searchRef,
  boardShown = true,
  channels = NO_CHANNELS,
}: {
  filters: BoardFilters;
  /** The channels served, where there are several (a hub's board): the picker and `channel:` completion. */
  channels?: readonly string[];
  /** Whether a board shows below (false: the server refused the URL's query). */
  boardShown?: boolean;
  /** Agent names (the board's roster), until GET /api/agents answers. */
  agents: readonly string[];
  searchRef: RefObject<HTMLInputElement | null>;
}) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const roster = useAgents();
  const names = useMemo(() => roster.data?.agents.map((a) => a.name) ?? agents, [roster.data, agents]);
  const urlQ = filters.q ?? '';
  const [text, setText] = useState(urlQ);
  // The reason shows once typing pauses (or on Enter), not at every keystroke of a term half written.
  const [armed, setArmed] = useState(false);
  const parsed = useMemo(() => parseQuery(text), [text]);
  const urlTerms = useMemo(() => {
    const p = parseQuery(urlQ);
    return p.ok ? p.terms : [];
  }, [urlQ]);
  const terms: readonly QueryTerm[] = parsed.ok ? parsed.terms : urlTerms;
  const error = !parsed.ok && (armed || text.trim() === urlQ) ? parsed : null;

  const latestUrlQ = useRef(urlQ);
  useEffect(() => {
    latestUrlQ.current = urlQ;
  });
  // The queries this bar wrote to the URL whose echo has not come back (lib/ui/url-echoes.ts):
  // a late echo must not overwrite what was typed or picked since.
  const written = useRef<PendingWrite[]>([]);

  const apply = (q: string) => {
    written.current = afterWrite(written.current, q, latestUrlQ.current, Date.now());
    const next = new URLSearchParams(window.location.search);
    for (const k of ['agent', 'state', 'flag']) next.delete(k);
    if (q) next.set('q', q);
    else next.delete('q');
    const qs = next.toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  };

  // Typing updates the URL after a short pause, when the query parses.
  useEffect(() => {
    const t = setTimeout(() => {
      const q = text.trim();
      const p = parseQuery(q);
      if (!p.ok) setArmed(true);
      else if (q !== latestUrlQ.current) apply(q);
    }, 250);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- typing alone arms the timer (a URL change from elsewhere must not re-send the text); apply is remade every render and the URL's query is read at fire time through `latestUrlQ`
  }, [text]);

  // The URL changed from elsewhere (back, a saved view): follow it.
  useEffect(() => {
    const echo = onUrlQuery(written.current, urlQ, Date.now());
    written.current = echo.pending;
    if (echo.from === 'ours') return;
    setText((cur) => (cur.trim() === urlQ ? cur : urlQ));
  }, [urlQ]);

  // An old link (`?agent=fang&state=blocked`): the same query, written as `?q=`.
  const legacy = ['agent', 'state', 'flag'].some((k) => params.has(k));
  useEffect(() => {
    if (legacy) apply(urlQ);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per old link; apply reads the URL at call time
  }, [legacy]);

  const shortcut = (kind: ShortcutKind, value: string) => {
    const q = printQuery(withShortcut(terms, kind, value));
    setText(q);
    setArmed(false);
    apply(q);
  };
  const selectValue = (kind: ShortcutKind) => shortcutValue(terms, kind) ?? SEVERAL;
  const agentValue = shortcutValue(terms, 'agent');
  const agentOptions = agentValue && !names.includes(agentValue) ? [agentValue, ...names] : names;
  // A channel the query names that is not served (gone, or mistyped) stays pickable, as it is what the board reads.
  const channelValue = shortcutValue(terms, 'channel');
  const channelOptions = channelValue && !channels.includes(channelValue) ? [channelValue, ...channels] : channels;

  return (
    <div className="flex flex-col gap-2">
      <form
        role="search"
        aria-label="Filter the board"
        className="flex flex-wrap items-start gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          const q = text.trim();
          if (parseQuery(q).ok) apply(q);
          else setArmed(true);
        }}
      >
        <div className="flex w-[34rem] max-w-full flex-col gap-1">
          <QueryBar
            value={text}
            onChange={(t) => {
              setText(t);
              setArmed(false);
            }}
            agents={names}
            channels={channels}
            inputRef={searchRef}
            invalid={error !== null}
            describedBy="board-query-help"
            className={`${box} ${error ? 'border-red-500 dark:border-red-400' : 'border-zinc-300 dark:border-zinc-700'} w-full font-mono text-[13px] placeholder:font-sans placeholder:text-zinc-500 dark:placeholder:text-zinc-400`}
          />
          <p id="board-query-help" className="text-xs text-zinc-600 dark:text-zinc-400" aria-live="polite">
            {error ? (
              <span data-query-error="" className="text-red-700 dark:text-red-300">
                {error.reason} (at character {error.at + 1}).{boardShown ? ' The board shows the last query that read.' : ''}
              </span>
            ) : (
              <span className="hidden md:inline">
                <code>key:value</code> for agent, lane, flag, state, project, holder, age (<code>&gt;1h</code>, <code>&lt;10m</code>); <code>-</code> excludes;
                quotes for spaces
              </span>
            )}
          </p>
        </div>
        {channels.length > 0 ? (
          <Shortcut id="filter-channel" label="Channel" value={selectValue('channel')} onChange={(v) => shortcut('channel', v)} any="All channels" options={channelOptions.map((c) => [c, c])} />
        ) : null}
        <Shortcut id="filter-agent" label="Agent" value={selectValue('agent')} onChange={(v) => shortcut('agent', v)} any="any agent" options={agentOptions.map((a) => [a, a])} />
        <Shortcut id="filter-state" label="State" value={selectValue('state')} onChange={(v) => shortcut('state', v)} any="any state" options={ORDER_STATES.map((s) => [s, STATE_LABEL[s]])} />
        <Shortcut id="filter-flag" label="Flag" value={selectValue('flag')} onChange={(v) => shortcut('flag', v)} any="any flag" options={ATTENTION_FLAGS.map((f) => [f, FLAG_LABEL[f]])} />
        {urlQ !== '' || text.trim() !== '' ? (
          <button
            type="button"
            onClick={() => {
              setText('');
              setArmed(false);
              apply('');
            }}
            className="h-8 rounded-md px-2 text-sm text-sky-700 underline-offset-2 hover:underline dark:text-sky-400"
          >
            Clear filters
          </button>
        ) : null}
      </form>
      <SavedViews q={parseQuery(urlQ).ok ? urlQ : ''} />
    </div>
  );
}

/** A dropdown shortcut: "any", the options, and "several" while the query names more than one. */
function Shortcut({
  id,
  label,
  value,
  onChange,
  any,
  options,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  any: string;
  options: readonly (readonly [string, string])[];
}) {
  return (
    <>
      <label className="sr-only" htmlFor={id}>
        {label}
      </label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)} className={control}>
        <option value="">{any}</option>
        {value === SEVERAL ? (
          <option value={SEVERAL} disabled>
            several (see the query)
          </option>
        ) : null}
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </>
  );
}
