'use client';
import { useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { applyCompletion, completeAt, type Completion } from '@/lib/ui/query-complete';

/**
 * The board's query input with completion (an ARIA combobox with a listbox): keys first, then
 * the values of the key at the caret (agent names, lanes, flags, states, ages). ArrowDown and
 * ArrowUp move through the offers (ArrowDown on an empty word offers every key), Enter or Tab
 * takes the highlighted one, Escape closes the list and a second Escape leaves the input.
 * Enter with nothing highlighted submits the form.
 */
const NO_CHANNELS: readonly string[] = [];

export function QueryBar({
  value,
  onChange,
  agents,
  channels = NO_CHANNELS,
  inputRef,
  invalid,
  describedBy,
  className,
}: {
  value: string;
  onChange: (text: string) => void;
  agents: readonly string[];
  /** The channels served, where there are several (a hub): `channel:` is completed to them. */
  channels?: readonly string[];
  inputRef: RefObject<HTMLInputElement | null>;
  invalid: boolean;
  describedBy: string;
  className: string;
}) {
  const [caret, setCaret] = useState(0);
  const [open, setOpen] = useState(false);
  const [explicit, setExplicit] = useState(false);
  const [active, setActive] = useState(-1);
  const pendingCaret = useRef<number | null>(null);
  const list = useMemo(() => (open ? completeAt(value, caret, agents, explicit, channels) : null), [open, value, caret, agents, explicit, channels]);
  const items = list?.items ?? [];
  const shown = items.length > 0;

  // After a pick, the caret goes where the picked text ends.
  useLayoutEffect(() => {
    const at = pendingCaret.current;
    const el = inputRef.current;
    if (at === null || !el) return;
    pendingCaret.current = null;
    el.setSelectionRange(at, at);
  }, [value, inputRef]);

  const pick = (item: Completion) => {
    if (!list) return;
    const next = applyCompletion(value, list, item);
    pendingCaret.current = next.caret;
    setCaret(next.caret);
    setActive(-1);
    setExplicit(false);
    setOpen(item.kind === 'key');
    onChange(next.text);
  };

  const optionId = (i: number) => `board-query-option-${i}`;

  return (
    <div className="relative w-full">
      <label className="sr-only" htmlFor="board-search">
        Query
      </label>
      <input
        id="board-search"
        ref={inputRef}
        type="search"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={shown}
        aria-controls="board-query-options"
        aria-activedescendant={shown && active >= 0 ? optionId(active) : undefined}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        value={value}
        onChange={(e) => {
          setCaret(e.target.selectionStart ?? e.target.value.length);
          setOpen(true);
          setExplicit(false);
          setActive(-1);
          onChange(e.target.value);
        }}
        onSelect={(e) => setCaret(e.currentTarget.selectionStart ?? 0)}
        onBlur={() => {
          setOpen(false);
          setActive(-1);
        }}
        onKeyDown={(e) => {
          switch (e.key) {
            case 'ArrowDown':
            case 'ArrowUp': {
              e.preventDefault();
              if (!shown) {
                setOpen(true);
                setExplicit(true);
                setActive(0);
                return;
              }
              const step = e.key === 'ArrowDown' ? 1 : -1;
              setActive((a) => (a + step + items.length) % items.length);
              return;
            }
            case 'Enter':
            case 'Tab': {
              const item = shown && active >= 0 ? items[active] : undefined;
              if (item) {
                e.preventDefault();
                pick(item);
              }
              return;
            }
            case 'Escape':
              e.preventDefault();
              if (shown) setOpen(false);
              else e.currentTarget.blur();
              return;
          }
        }}
        placeholder="agent:fang lane:stale -flag:gave_up age:>1h, or any text   ( / )"
        autoComplete="off"
        spellCheck={false}
        className={className}
      />
      {shown ? (
        <ul
          id="board-query-options"
          role="listbox"
          aria-label="Completions"
          className="absolute top-full left-0 z-30 mt-1 max-h-80 w-80 max-w-full overflow-auto rounded-md border border-zinc-200 bg-white py-1 text-sm shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
        >
          {items.map((item, i) => (
            <li
              key={item.insert}
              id={optionId(i)}
              role="option"
              aria-selected={i === active}
              onMouseDown={(e) => {
                e.preventDefault(); // keep the focus in the input
                pick(item);
              }}
              onMouseEnter={() => setActive(i)}
              className={`flex cursor-pointer items-baseline justify-between gap-3 px-2.5 py-1 ${i === active ? 'bg-sky-100 text-sky-950 dark:bg-sky-900/60 dark:text-sky-50' : 'text-zinc-900 dark:text-zinc-100'}`}
            >
              <span className="font-mono text-[13px]">{item.label}</span>
              <span className="truncate text-xs text-zinc-500 dark:text-zinc-400">{item.detail}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
