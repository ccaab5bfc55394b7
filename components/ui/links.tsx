import Link from 'next/link';

const linkClass =
  'rounded-sm underline decoration-zinc-300 underline-offset-2 hover:decoration-current dark:decoration-zinc-600';

export const orderHref = (id: string) => `/orders/${encodeURIComponent(id)}`;
export const agentHref = (name: string) => `/agents/${encodeURIComponent(name)}`;

export function OrderLink({ id, className = '', ...rest }: { id: string; className?: string } & Omit<React.ComponentProps<typeof Link>, 'href'>) {
  return (
    <Link href={orderHref(id)} className={`font-mono ${linkClass} ${className}`} {...rest}>
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
