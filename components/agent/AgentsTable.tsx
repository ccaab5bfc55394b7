'use client';
import { useAgents } from '@/lib/client/api';
import { useServerNow } from '@/lib/client/clock';
import { Badge } from '@/components/ui/badges';
import { AgentLink } from '@/components/ui/links';
import { Loading, QueryError, tableClass, tdClass, thClass } from '@/components/ui/page';
import { Ago } from '@/components/ui/time';
import { clockOffsetSentence } from '@/lib/ui/time';
import { ChannelChip, ChannelScope } from '@/components/ui/channel';
import { channelOfCard } from '@/lib/ui/card-channel';
import { ShortKey } from './KeyFacts';

/**
 * The roster: who is in it, what each holds, when each was last heard from here. In a hub, of
 * `channel`, or of every channel, each row with its channel (a name in two channels is two rows).
 */
export function AgentsTable({ channel }: { channel?: string }) {
  const q = useAgents(channel);
  const now = useServerNow(q.data?.now_ms, q.dataUpdatedAt);
  if (q.isPending) return <Loading what="the roster" />;
  if (q.isError && !q.data) return <QueryError error={q.error} what="the roster" retry={() => void q.refetch()} />;
  const agents = [...q.data.agents].sort((a, b) => Number(a.retired) - Number(b.retired) || a.name.localeCompare(b.name) || (channelOfCard(a) ?? '').localeCompare(channelOfCard(b) ?? ''));
  // Every channel's roster at once: each row says its channel.
  const merged = !channel && agents.some((a) => channelOfCard(a) !== undefined);

  return (
    <ChannelScope channel={channel}>
      <div className="mx-auto max-w-6xl px-4 py-5 sm:px-6">
        <h1 className="flex items-center gap-2 text-lg font-semibold tracking-tight">Agents {channel ? <ChannelChip channel={channel} /> : null}</h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
          The roster ({agents.length}). “Last seen” is when a file it wrote last arrived here, on this machine&apos;s clock.
        </p>
        <div className="mt-4 overflow-x-auto">
          <table className={tableClass}>
            <thead>
              <tr>
                <th className={thClass}>name</th>
                {merged ? <th className={thClass}>channel</th> : null}
                <th className={thClass}>role</th>
                <th className={`${thClass} text-right`} title="orders whose card names it as holder, those in Done included">
                  holder of
                </th>
                <th className={thClass}>last seen</th>
                <th className={thClass}>clock</th>
                <th className={thClass}>pinned key</th>
              </tr>
            </thead>
            <tbody>
              {agents.map((a) => (
                <tr key={`${a.name}@${channelOfCard(a) ?? ''}`} data-agent={a.name} className={a.retired ? 'text-zinc-500 dark:text-zinc-400' : undefined}>
                  <td className={tdClass}>
                    <span className="flex flex-wrap items-center gap-1.5">
                      <AgentLink name={a.name} channel={channelOfCard(a)} className="font-medium" />
                      {a.is_operator ? <Badge tone="review">operator</Badge> : null}
                      {a.retired ? <Badge tone="neutral">retired</Badge> : null}
                    </span>
                  </td>
                  {merged ? (
                    <td className={tdClass}>
                      <ChannelChip channel={channelOfCard(a) ?? ''} />
                    </td>
                  ) : null}
                  <td className={tdClass}>{a.role}</td>
                  <td className={`${tdClass} text-right tabular-nums`}>{a.holding}</td>
                  <td className={`${tdClass} whitespace-nowrap`}>{a.last_arrival_ms === null ? <span className="text-zinc-500 dark:text-zinc-400">never</span> : <Ago ms={a.last_arrival_ms} now={now} />}</td>
                  <td className={`${tdClass} text-xs`}>{a.clock_offset_ms === null ? <span className="text-zinc-500 dark:text-zinc-400">unknown</span> : clockOffsetSentence(a.clock_offset_ms).replace(/^its clock /, '')}</td>
                  <td className={tdClass}>
                    <span className="flex flex-wrap items-center gap-2">
                      <ShortKey hex={a.public_key} />
                      {a.key_changed ? <Badge tone="danger" title="the folder now carries a different key for this name">key changed</Badge> : null}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </ChannelScope>
  );
}
