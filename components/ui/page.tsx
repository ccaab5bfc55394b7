'use client';
import { useState, type ReactNode } from 'react';
import { ApiError } from '@/lib/client/api';
import { whichChannelsOf } from '@/lib/ui/card-channel';
import { ChannelPicker, usePageChannel } from './channel';
import { boardHref, PageLink } from './links';

/** A titled block of a detail page. */
export function Section({ title, id, children, aside }: { title: string; id: string; children: ReactNode; aside?: ReactNode }) {
  return (
    <section aria-labelledby={id} className="mt-8">
      <div className="flex items-baseline justify-between gap-4 border-b border-zinc-200 pb-1.5 dark:border-zinc-800">
        <h2 id={id} className="text-base font-semibold tracking-tight">
          {title}
        </h2>
        {aside ? <div className="text-xs text-zinc-500 dark:text-zinc-400">{aside}</div> : null}
      </div>
      <div className="mt-3">{children}</div>
    </section>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <div className="px-4 py-6 sm:px-6" aria-busy="true">
      <p role="status" className="text-sm text-zinc-500 dark:text-zinc-400">
        Loading {what}…
      </p>
    </div>
  );
}

/**
 * A failed query: a read of one channel asked without one in a hub (`which_channel`) offers the
 * channels to pick from (`pick`: the page of each); not found (4xx) says so plainly; other errors
 * offer a retry.
 */
export function QueryError({ error, what, retry, pick }: { error: Error; what: string; retry: () => void; pick?: (channel: string) => string }) {
  const channel = usePageChannel();
  const channels = error instanceof ApiError ? whichChannelsOf(error.body) : null;
  if (channels && pick) return <ChannelPicker channels={channels} what={what.charAt(0).toUpperCase() + what.slice(1)} hrefOf={pick} />;
  if (error instanceof ApiError && (error.status === 404 || error.status === 400)) {
    return (
      <div className="px-4 py-6 sm:px-6">
        <h1 className="text-lg font-semibold">Not found</h1>
        <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">{error.status === 404 ? `There is no ${what} in this channel.` : error.message}
        </p>
        <p className="mt-3 text-sm">
          <a href={boardHref('', channel)} className="underline underline-offset-2">
            Back to the board
          </a>
        </p>
      </div>
    );
  }
  return (
    <div role="alert" className="m-4 rounded-md border border-red-300 bg-red-50 p-4 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
      <p className="font-semibold">Could not load {what}.</p>
      <p className="mt-1">{error.message}</p>
      <button type="button" onClick={retry} className="mt-2 underline">
        Retry
      </button>
    </div>
  );
}

/** Copies text to the clipboard; says "copied" for a moment. */
export function CopyButton({ text, label = 'copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(
          () => {
            setDone(true);
            setTimeout(() => setDone(false), 1500);
          },
          () => setDone(false),
        );
      }}
      className="rounded border border-zinc-300 px-1.5 py-px text-xs text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800"
    >
      <span aria-live="polite">{done ? 'copied' : label}</span>
    </button>
  );
}

/** A definition list of facts, two columns on wide screens. */
export function Facts({ children }: { children: ReactNode }) {
  return <dl className="grid grid-cols-[max-content_1fr] gap-x-6 gap-y-1.5 text-sm">{children}</dl>;
}
export function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-zinc-500 dark:text-zinc-400">{term}</dt>
      <dd className="min-w-0 break-words text-zinc-900 dark:text-zinc-100">{children}</dd>
    </>
  );
}

export const tableClass = 'w-full border-collapse text-left text-sm';
export const thClass = 'border-b border-zinc-200 px-2 py-1.5 text-xs font-semibold text-zinc-600 dark:border-zinc-800 dark:text-zinc-400';
export const tdClass = 'border-b border-zinc-100 px-2 py-1.5 align-top dark:border-zinc-800/70';

/** The breadcrumb above a page's title: a link back to its list, then what this page is. */
export function Crumb({ href, label, here }: { href: string; label: string; here: string }) {
  return (
    <p className="text-xs text-zinc-500 dark:text-zinc-400">
      <PageLink href={href} className="underline underline-offset-2">
        {label}
      </PageLink>{' '}
      / {here}
    </p>
  );
}
