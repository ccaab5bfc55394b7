'use client';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { inChannel } from '@/lib/ui/card-channel';
import { usePageChannel } from './channel';

const linkClass =
  'rounded-sm underline decoration-zinc-300 underline-offset-2 hover:decoration-current dark:decoration-zinc-600';

/** An order's page; in a hub, of its channel (`?channel=`: order ids repeat across channels). */
export const orderHref = (id: string, channel?: string | null) => inChannel(`/orders/${encodeURIComponent(id)}`, channel);
/** An agent's page; in a hub, of its channel (a name in two channels is two identities). */
export const agentHref = (name: string, channel?: string | null) => inChannel(`/agents/${encodeURIComponent(name)}`, channel);

/**
 * A link to one item (an order, an agent, a filtered board), of which a page may show hundreds:
 * not prefetched. Next.js prefetches every link in view, and every page here is rendered on
 * demand: a board of a hundred cards would have the server render a hundred order pages nobody
 * opens, and a phone fetch them, on each load. A page's own links are fetched on intent (PageLink).
 */
export function ItemLink(props: React.ComponentProps<typeof Link>) {
  return <Link prefetch={false} {...props} />;
}

/**
 * A link to one of the app's pages (the navigation's, a breadcrumb's): fetched ahead once a
 * pointer rests on it, a finger touches it or the keyboard reaches it, not whenever it is in
 * view. Every page here is rendered on demand: in view, each load of any page would have the
 * server render all six navigation targets (two requests each) for the one an operator opens.
 */
export function PageLink({ href, ...rest }: Omit<React.ComponentProps<typeof Link>, 'href' | 'prefetch'> & { href: string }) {
  const router = useRouter();
  const ahead = () => router.prefetch(href);
  return <Link prefetch={false} href={href} onMouseEnter={ahead} onTouchStart={ahead} onFocus={ahead} {...rest} />;
}

/** The links below name the channel given, else the page's (ChannelScope), else none. */
type ChannelProp = { channel?: string | undefined };

export function OrderLink({ id, channel, className = '', ...rest }: { id: string; className?: string } & ChannelProp & Omit<React.ComponentProps<typeof Link>, 'href'>) {
  const page = usePageChannel();
  return (
    <ItemLink href={orderHref(id, channel ?? page)} className={`font-mono ${linkClass} ${className}`} {...rest}>
      {id}
    </ItemLink>
  );
}

export function AgentLink({ name, channel, className = '' }: { name: string; className?: string } & ChannelProp) {
  const page = usePageChannel();
  return (
    <ItemLink href={agentHref(name, channel ?? page)} className={`${linkClass} ${className}`}>
      {name}
    </ItemLink>
  );
}

/**
 * The board filtered by a query (lib/query/query.ts), e.g. `agent:fang lane:done`; in a hub, of
 * one channel: the query's `channel:` term, which is how the board narrows to a channel.
 */
export const boardHref = (q: string, channel?: string | null) => {
  const query = channel ? `channel:${channel}${q ? ` ${q}` : ''}` : q;
  return query ? `/?${new URLSearchParams({ q: query }).toString()}` : '/';
};

export function BoardLink({ q, channel, children, className = '' }: { q: string; children: React.ReactNode; className?: string } & ChannelProp) {
  const page = usePageChannel();
  return (
    <ItemLink href={boardHref(q, channel ?? page)} className={`${linkClass} ${className}`}>
      {children}
    </ItemLink>
  );
}
