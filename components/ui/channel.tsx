'use client';
/**
 * The channel a page is of, in a hub (`?channel=` in its URL): given once at the page's top
 * (ChannelScope), every inner link (components/ui/links.tsx) names it, so a click never lands on
 * a page that must ask which channel. With one channel served no page names one.
 */
import { PageLink } from './links';
import { createContext, useContext, type ReactNode } from 'react';

const PageChannel = createContext<string | undefined>(undefined);

/** The links inside `children` name `channel` (none when undefined). */
export function ChannelScope({ channel, children }: { channel: string | undefined; children: ReactNode }) {
  return <PageChannel.Provider value={channel}>{children}</PageChannel.Provider>;
}

/** The channel of the page being shown, or undefined. */
export const usePageChannel = (): string | undefined => useContext(PageChannel);

/** Which channel a page or a row is of: a small chip (as a hub's card shows it). */
export function ChannelChip({ channel }: { channel: string }) {
  return (
    <span data-channel={channel} title={`channel ${channel}`} className="shrink-0 rounded border border-zinc-300 px-1 font-mono text-[11px] leading-4 text-zinc-700 dark:border-zinc-700 dark:text-zinc-300">
      {channel}
    </span>
  );
}

/** A page of one channel asked without one: the channels to pick from, each a link to the page of that channel. */
export function ChannelPicker({ channels, what, hrefOf }: { channels: readonly string[]; what: string; hrefOf: (channel: string) => string }) {
  return (
    <div className="mx-auto max-w-3xl px-4 py-6 sm:px-6" data-channel-picker="">
      <h1 className="text-lg font-semibold tracking-tight">Which channel?</h1>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{what} is of one channel. Pick one:</p>
      <ul className="mt-3 flex flex-wrap gap-2">
        {channels.map((c) => (
          <li key={c}>
            <PageLink href={hrefOf(c)} className="inline-block rounded-md border border-zinc-300 px-3 py-1.5 font-mono text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800">
              {c}
            </PageLink>
          </li>
        ))}
      </ul>
    </div>
  );
}
