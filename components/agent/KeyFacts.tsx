'use client';
import { CopyButton } from '@/components/ui/page';

/** A public key, short (first 8 … last 4 hex digits), full in the tooltip, with a copy button. */
export function ShortKey({ hex }: { hex: string | null }) {
  if (!hex) return <span className="text-zinc-500 dark:text-zinc-400">none</span>;
  const short = hex.length > 16 ? `${hex.slice(0, 8)}…${hex.slice(-4)}` : hex;
  return (
    <span className="inline-flex items-center gap-2">
      <code className="font-mono text-xs" title={hex}>
        {short}
      </code>
      <CopyButton text={hex} label="copy key" />
    </span>
  );
}
