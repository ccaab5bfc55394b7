import type { HubChannelSummary, IndexHealth } from '@/lib/api/types';
import { channelLines, type ChannelLine } from '@/lib/ui/channel-health';

const DOT: Record<ChannelLine['tone'], string> = {
  ok: 'bg-emerald-500',
  busy: 'bg-sky-500',
  warn: 'bg-amber-500',
  gone: 'bg-red-600 dark:bg-red-500',
  off: 'bg-zinc-300 dark:bg-zinc-600',
};

/** A hub's channels under the board's summary, each one's state in words (lib/ui/channel-health.ts). */
export function ChannelHealth({ channels, health }: { channels: readonly HubChannelSummary[]; health: Readonly<Record<string, IndexHealth>> | undefined }) {
  const lines = channelLines(channels, health);
  return (
    <ul aria-label="Channels" className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-600 dark:text-zinc-400">
      {lines.map((l) => (
        <li key={l.name} data-channel-health={l.tone} className="flex items-center gap-1.5">
          <span aria-hidden="true" className={`inline-block size-2 shrink-0 rounded-full ${DOT[l.tone]}`} />
          <span className="font-mono font-medium text-zinc-800 dark:text-zinc-200">{l.name}</span>{' '}
          <span className={l.tone === 'gone' || l.tone === 'warn' ? 'text-amber-800 dark:text-amber-300' : ''}>{l.words}</span>
        </li>
      ))}
    </ul>
  );
}
