'use client';
import { useState } from 'react';
import { useSavedViews } from '@/lib/client/views';
import { viewHref, viewNameProblem, MAX_VIEW_NAME } from '@/lib/ui/views';
import { ItemLink } from '@/components/ui/links';

const small = 'h-7 rounded-md px-2 text-xs';
const quiet = `${small} text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100`;

/**
 * The board's saved views (kept in this browser, lib/client/views.ts) as links to `/?q=…` that
 * can be opened, copied and shared; the current query (`q`, one that parses) saved under a name.
 * Nothing shows while there is no view and no query.
 */
export function SavedViews({ q }: { q: string }) {
  const { views, save, remove } = useSavedViews();
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  if (views.length === 0 && q === '') return null;

  const submit = () => {
    const p = viewNameProblem(name);
    if (p) {
      setProblem(p);
      return;
    }
    save({ name, q });
    setNaming(false);
    setName('');
    setProblem(null);
  };
  const copy = (viewName: string, href: string) => {
    const url = new URL(href, window.location.origin).toString();
    void navigator.clipboard?.writeText(url).then(
      () => setCopied(viewName),
      () => setCopied(null),
    );
  };

  return (
    <section aria-label="Saved views" className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
      <h2 className="text-xs font-medium tracking-wide text-zinc-500 uppercase dark:text-zinc-400">Views</h2>
      {views.length === 0 ? <span className="text-xs text-zinc-500 dark:text-zinc-400">none saved in this browser</span> : null}
      <ul className="flex flex-wrap items-center gap-1.5">
        {views.map((v) => {
          const href = viewHref(v.q);
          const current = v.q === q;
          return (
            <li
              key={v.name}
              data-view={v.name}
              className={`flex items-center rounded-md border pl-2 ${current ? 'border-sky-400 bg-sky-50 dark:border-sky-600 dark:bg-sky-950/40' : 'border-zinc-200 bg-white dark:border-zinc-700 dark:bg-zinc-900'}`}
            >
              <ItemLink href={href} title={v.q || '(everything)'} aria-current={current ? 'true' : undefined} className="max-w-[14rem] truncate text-sky-800 underline-offset-2 hover:underline dark:text-sky-300">
                {v.name}
              </ItemLink>
              <button type="button" className={quiet} onClick={() => copy(v.name, href)} aria-label={`Copy the link of view ${v.name}`} title="Copy its link">
                {copied === v.name ? 'copied' : 'copy link'}
              </button>
              <button type="button" className={`${quiet} pr-2`} onClick={() => remove(v.name)} aria-label={`Delete view ${v.name}`} title="Delete this view">
                ×
              </button>
            </li>
          );
        })}
      </ul>
      {q !== '' && !naming ? (
        <button type="button" className={`${small} text-sky-700 underline-offset-2 hover:underline dark:text-sky-400`} onClick={() => setNaming(true)}>
          Save this view…
        </button>
      ) : null}
      {naming ? (
        <form
          className="flex flex-wrap items-center gap-1.5"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <label className="sr-only" htmlFor="view-name">
            View name
          </label>
          <input
            id="view-name"
            autoFocus
            value={name}
            maxLength={MAX_VIEW_NAME + 1}
            onChange={(e) => {
              setName(e.target.value);
              setProblem(null);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                e.preventDefault();
                setNaming(false);
              }
            }}
            placeholder="name this view"
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? 'view-name-problem' : undefined}
            className="h-7 w-44 rounded-md border border-zinc-300 bg-white px-2 text-xs text-zinc-900 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
          />
          <button type="submit" className={`${small} bg-sky-700 text-white hover:bg-sky-800 dark:bg-sky-600 dark:hover:bg-sky-500`}>
            Save view
          </button>
          <button type="button" className={quiet} onClick={() => setNaming(false)}>
            Cancel
          </button>
          {problem ? (
            <span id="view-name-problem" className="text-xs text-red-700 dark:text-red-300">
              {problem}
            </span>
          ) : null}
        </form>
      ) : null}
    </section>
  );
}
