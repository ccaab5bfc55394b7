'use client';
import { useEffect } from 'react';
import type { AgentResponse } from '@/lib/api/types';
import { useAgent } from '@/lib/client/api';
import { useServerNow } from '@/lib/client/clock';
import { OrderCard } from '@/components/board/OrderCard';
import { Badge, StateBadge } from '@/components/ui/badges';
import { AgentLink, BoardLink, OrderLink } from '@/components/ui/links';
import { Crumb, Fact, Facts, Loading, QueryError, Section, tableClass, tdClass, thClass } from '@/components/ui/page';
import { Ago, WriterClock } from '@/components/ui/time';
import { HOLD_ENDING_LABEL, HOLD_ENDING_TONE } from '@/lib/ui/labels';
import { endingDetail } from '@/lib/ui/history';
import { clockOffsetSentence, utcClock } from '@/lib/ui/time';
import { LANES } from '@/lib/ledger/derive';
import { RetireAction } from '@/components/actions/RetireAction';
import { AgentTuning } from '@/components/tuning/AgentTuning';
import { ChannelChip, ChannelScope } from '@/components/ui/channel';
import { agentHref } from '@/components/ui/links';
import { channelOfCard, inChannel } from '@/lib/ui/card-channel';
import { ShortKey } from './KeyFacts';

/**
 * One agent (of `channel`, in a hub: a name in two channels is two identities): role, key, what
 * it holds now, what it held before and how each ended, last seen, its heartbeat gaps and run
 * durations. Asked without a channel of a name several channels know: those channels to pick from.
 */
export function AgentView({ name, channel }: { name: string; channel?: string }) {
  const q = useAgent(name, channel);
  const now = useServerNow(q.data?.now_ms, q.dataUpdatedAt);
  useEffect(() => {
    document.title = `${name} · claimboard`;
  }, [name]);
  if (q.isPending) return <Loading what={`agent ${name}`} />;
  if (q.isError && !q.data) return <QueryError error={q.error} what={`agent “${name}”`} retry={() => void q.refetch()} pick={(c) => agentHref(name, c)} />;
  // The channel the answer is of (a hub names it, asked or not), so every link on the page stays in it.
  const of = channelOfCard(q.data) ?? channel;
  return (
    <ChannelScope channel={of}>
      <AgentDetail data={q.data} now={now} channel={of} />
    </ChannelScope>
  );
}

function AgentDetail({ data, now, channel }: { data: AgentResponse; now: number; channel: string | undefined }) {
  const a = data.agent;
  const staleAfterMs = data.stale_after_ms;
  const ctx = { nowMs: now, staleAfterMs };
  return (
    <article className="mx-auto max-w-5xl px-4 py-5 sm:px-6">
      <Crumb href={inChannel('/agents', channel)} label="Agents" here="agent" />
      <header className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1">
        <h1 className="text-xl font-semibold tracking-tight">{a.name}</h1>
        {channel ? <ChannelChip channel={channel} /> : null}
        <Badge tone="neutral">{a.role}</Badge>
        {a.is_operator ? <Badge tone="review">operator</Badge> : null}
        {a.retired ? <Badge tone="danger">retired</Badge> : null}
      </header>
      <p className="mt-2 text-sm text-zinc-700 dark:text-zinc-300">
        {a.last_arrival_ms === null ? (
          'Nothing it wrote has arrived here.'
        ) : (
          <>
            Last seen <Ago ms={a.last_arrival_ms} now={now} /> (a file it wrote arrived here at {utcClock(a.last_arrival_ms, { date: true })} UTC);{' '}
            {clockOffsetSentence(a.clock_offset_ms)}.
          </>
        )}
      </p>

      <RetireAction data={data} />

      {a.key_changed ? (
        <div role="alert" className="mt-3 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200">
          <p className="font-semibold">Its key changed in the folder.</p>
          <p className="mt-0.5">
            Records still verify against the pinned key; the new key is not trusted until an operator re-pins it (local configuration, never
            automatic). Folder key: <ShortKey hex={a.folder_key} />
          </p>
          <p className="mt-1">
            If the change is legitimate (its machine was rebuilt and you checked the new key with its owner), re-pin it on the machine that
            runs this dashboard: <code className="font-mono text-[13px]">npx claimboard repin &lt;channel&gt; {a.name} --key &lt;the key you checked&gt;</code>
          </p>
        </div>
      ) : null}

      {a.retirement ? (
        <div className="mt-3 rounded-md border border-zinc-300 bg-zinc-50 px-3 py-2 text-sm dark:border-zinc-700 dark:bg-zinc-900/60">
          Retired by <AgentLink name={a.retirement.operator} className="font-medium" />: “{a.retirement.reason}” (operator&apos;s clock{' '}
          <WriterClock text={a.retirement.at} date />, arrived here <Ago ms={a.retirement.arrival_ms} now={now} />)
        </div>
      ) : null}

      <Section title="Identity" id="identity">
        <Facts>
          <Fact term="role">{a.role}</Fact>
          <Fact term="operator">{a.is_operator ? 'yes: its signed decisions count' : 'no'}</Fact>
          <Fact term="capabilities">{a.capabilities.length === 0 ? <span className="text-zinc-500 dark:text-zinc-400">none listed</span> : a.capabilities.join(', ')}</Fact>
          <Fact term="pinned key">
            <ShortKey hex={a.public_key} />
          </Fact>
          <Fact term="holds now">{data.holds.length}</Fact>
          <Fact term="finished">
            {data.finished === 0 ? (
              'no order in Done names it as holder'
            ) : (
              <BoardLink q={`holder:${a.name} lane:done`}>
                {data.finished.toLocaleString('en')} {data.finished === 1 ? 'order' : 'orders'} in Done name it as holder
              </BoardLink>
            )}
          </Fact>
        </Facts>
      </Section>

      <Section title={`Holds now (${data.holds.length})`} id="holds" aside="most urgent first">
        {data.holds.length === 0 ? (
          <p className="text-sm text-zinc-500 dark:text-zinc-400">It holds nothing.</p>
        ) : (
          <ul className="grid gap-2 sm:grid-cols-2 lg:grid-cols-3">
            {[...data.holds].sort((x, y) => LANES.indexOf(x.lane) - LANES.indexOf(y.lane)).map((c) => (
              <li key={c.order_id}>
                <OrderCard card={c} ctx={ctx} />
              </li>
            ))}
          </ul>
        )}
      </Section>

      <Section title={`Held before (${data.held_total.toLocaleString('en')})`} id="held">
        {data.held.length === 0 ? (
          <p className="text-sm text-zinc-500 dark:text-zinc-400">No earlier holds.</p>
        ) : (
          <div className="overflow-x-auto">
            {data.held.length < data.held_total ? (
              <p className="mb-2 text-sm text-zinc-600 dark:text-zinc-400" data-held-shown={data.held.length}>
                The first {data.held.length.toLocaleString('en')} of {data.held_total.toLocaleString('en')}: gave up, released, superseded and
                lost first, finished last, each by order id. Each order&apos;s page tells its whole story; the{' '}
                <a href={inChannel(`/history?q=agent:${encodeURIComponent(a.name)}`, channel)} className="underline">
                  fleet history
                </a>{' '}
                draws the same holds on a time axis.
              </p>
            ) : null}
            <table className={tableClass}>
              <thead>
                <tr>
                  <th className={thClass}>order</th>
                  <th className={thClass}>claimed: arrived here (its clock)</th>
                  <th className={thClass}>how it ended</th>
                  <th className={thClass}>order now</th>
                </tr>
              </thead>
              <tbody>
                {data.held.map((h) => (
                  <tr key={`${h.order_id}:${h.claimed_ms}`} data-held={`${h.order_id}:${h.ending}`}>
                    <td className={tdClass}>
                      <OrderLink id={h.order_id} />
                    </td>
                    <td className={`${tdClass} text-xs`}>
                      <span className="tabular-nums">{utcClock(h.claimed_ms, { date: true })} UTC</span>{' '}
                      <span className="text-zinc-500 dark:text-zinc-400">
                        (<WriterClock text={h.claimed_at} date />)
                      </span>
                    </td>
                    <td className={tdClass}>
                      <span className="flex flex-wrap items-center gap-2">
                        <Badge tone={HOLD_ENDING_TONE[h.ending]}>{HOLD_ENDING_LABEL[h.ending]}</Badge>
                        <span className="text-sm text-zinc-700 dark:text-zinc-300">{endingDetail(h)}</span>
                      </span>
                    </td>
                    <td className={tdClass}>{h.state ? <StateBadge state={h.state} /> : null}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>

      <AgentTuning name={a.name} />
    </article>
  );
}
