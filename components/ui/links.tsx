import Link from 'next/link';

const linkClass =
  'rounded-sm underline decoration-zinc-300 underline-offset-2 hover:decoration-current dark:decoration-zinc-600';

/** An order's page; in a hub, of its channel (`?channel=`: order ids repeat across channels). */
export const orderHref = (id: string, channel?: string) => `/orders/${encodeURIComponent(id)}${channel ? `?channel=${encodeURIComponent(channel)}` : ''}`;
export const agentHref = (name: string) => `/agents/${encodeURIComponent(name)}`;

export function OrderLink({ id, channel, className = '', ...rest }: { id: string; channel?: string | undefined; className?: string } & Omit<React.ComponentProps<typeof Link>, 'href'>) {
  return (
    <Link href={orderHref(id, channel)} className={`font-mono ${linkClass} ${className}`} {...rest}>
      {id}
    </Link>
  );
}

export function AgentLink({ name, className = '' }: { name: string; className?: string }) {
  return (
    <Link href={agentHref(name)} className={`${linkClass} ${className}`}>
      {name}
    </Link>
  );
}

/** The board filtered by a query (lib/query/query.ts), e.g. `agent:fang lane:done`. */
export const boardHref = (q: string) => `/?${new URLSearchParams({ q }).toString()}`;

export function BoardLink({ q, children, className = '' }: { q: string; children: React.ReactNode; className?: string }) {
  return (
    <Link href={boardHref(q)} className={`${linkClass} ${className}`}>
      {children}
    </Link>
  );
}
