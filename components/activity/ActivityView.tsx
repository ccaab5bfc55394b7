'use client';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import type { Act, ActFilters, ActKind, ActivityLedger } from '@/lib/api/types';
import { actFiltersToParams, parseActFilters, useActivity } from '@/lib/client/api';
import { useServerNow } from '@/lib/client/clock';
import { ACT_KINDS } from '@/lib/ledger/acts';
import type { Tone } from '@/lib/ui/labels';
import { Badge } from '@/components/ui/badges';
import { AgentLink, ItemLink, agentHref, orderHref } from '@/components/ui/links';
import { Loading, QueryError, Section, tableClass, thClass } from '@/components/ui/page';
import { Ago, WriterClock } from '@/components/ui/time';
import { ChannelChip, ChannelScope } from '@/components/ui/channel';
import { channelOfCard } from '@/lib/ui/card-channel';

/** What each act is called on the page. */
export const ACT_LABEL: Record<ActKind, string> = {
  requeue: 'Re-queue',
  release: 'Release',
  retire: 'Retire',
  reopen: 'Reopen',
  ack: 'Acknowledge',
  supersede: 'Supersede',
  interrupt: 'Interrupt',
};

const ACT_TONE: Record<ActKind, Tone> = {
  requeue: 'active',
  release: 'active',
  retire: 'danger',
  reopen: 'warn',
  ack: 'done',
  supersede: 'review',
  interrupt: 'warn',
};

const control =
  'h-8 rounded-md border border-zinc-300 bg-white px-2 text-sm text-zinc-900 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100';

/** A cell's name, shown before its value where the table is stacked (narrow screens). */
function CellLabel({ children }: { children: string }) {
  return <span className="mr-2 text-xs font-semibold text-zinc-500 md:hidden dark:text-zinc-400">{children}</span>;
}

/** A cell: a line of its row's block on narrow screens, a table cell from md up. */
const cell = 'block px-2 py-0.5 md:table-cell md:border-b md:border-zinc-100 md:py-1.5 md:align-top md:dark:border-zinc-800/70';

/**
 * Every operator act of the channel, newest arrival here first, from the signed
 * decision records and ledger lines: who, what, on which order or agent, the reason, and whether
 * its signature and ledger chain verify. Filters (operator, act, order) live in the URL, and in a
 * hub the channel (`?channel=`; without it every channel's acts, each with its channel).
 */
export function ActivityView() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filters = parseActFilters(params);
  const channel = params.get('channel') || undefined;
  const q = useActivity(filters, channel);
  const first = q.data?.pages[0];
  const now = useServerNow(first?.now_ms, q.dataUpdatedAt);
  const apply = (next: ActFilters) => {
    const p = actFiltersToParams(next);
    if (channel) p.set('channel', channel);
    const qs = p.toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  };

  return (
    <ChannelScope channel={channel}>
      <div className="mx-auto max-w-7xl px-4 py-5 sm:px-6">
        <h1 className="flex items-center gap-2 text-lg font-semibold tracking-tight">Operator activity {channel ? <ChannelChip channel={channel} /> : null}</h1>
        <p className="mt-1 max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
          Every act of an operator (or another authority: the master, an orchestrator) in this channel, from its signed records and its
          ledger lines. Newest arrival here first; “arrived here” is this machine&apos;s clock, the writer&apos;s clock is the operator&apos;s own.
        </p>
        <ActivityFilters filters={filters} operators={first?.operators ?? []} apply={apply} />
        {q.isPending ? (
          <Loading what="the activity" />
        ) : q.isError && !q.data ? (
          <QueryError error={q.error} what="the activity" retry={() => void q.refetch()} />
        ) : first ? (
          <>
            <p className="mt-3 text-sm text-zinc-600 dark:text-zinc-400" data-activity-count>
              {first.total === 0
                ? Object.keys(filters).length
                  ? 'No act matches these filters.'
                  : 'No operator has acted in this channel yet.'
                : `${first.total} act${first.total === 1 ? '' : 's'}${Object.keys(filters).length ? (first.total === 1 ? ' matches these filters' : ' match these filters') : ''}`}
            </p>
            {first.total > 0 ? <ActsTable acts={q.data.pages.flatMap((p) => p.acts)} now={now} /> : null}
            {q.hasNextPage ? (
              <button
                type="button"
                onClick={() => void q.fetchNextPage()}
                disabled={q.isFetchingNextPage}
                className="mt-3 rounded-md border border-zinc-300 px-3 py-1 text-sm hover:bg-zinc-100 disabled:opacity-60 dark:border-zinc-700 dark:hover:bg-zinc-800"
              >
                {q.isFetchingNextPage ? 'Loading…' : 'Show older acts'}
              </button>
            ) : null}
            <Ledgers ledgers={first.ledgers} />
          </>
        ) : null}
      </div>
    </ChannelScope>
  );
}

function ActivityFilters({ filters, operators, apply }: { filters: ActFilters; operators: readonly string[]; apply: (f: ActFilters) => void }) {
  const [order, setOrder] = useState(filters.order ?? '');
  // The URL changed from elsewhere (back, clear): follow it.
  useEffect(() => setOrder(filters.order ?? ''), [filters.order]);
  const options = filters.operator && !operators.includes(filters.operator) ? [filters.operator, ...operators] : operators;
  const any = Boolean(filters.operator || filters.act || filters.order);
  return (
    <form
      role="search"
      aria-label="Filter the activity"
      className="mt-4 flex flex-wrap items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        apply({ ...filters, order: order.trim() || undefined });
      }}
    >
      <label className="sr-only" htmlFor="activity-operator">
        Operator
      </label>
      <select id="activity-operator" value={filters.operator ?? ''} onChange={(e) => apply({ ...filters, operator: e.target.value || undefined })} className={control}>
        <option value="">any operator</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
      <label className="sr-only" htmlFor="activity-act">
        Act
      </label>
      <select
        id="activity-act"
        value={filters.act ?? ''}
        onChange={(e) => apply({ ...filters, act: (e.target.value || undefined) as ActFilters['act'] })}
        className={control}
      >
        <option value="">any act</option>
        {ACT_KINDS.map((k) => (
          <option key={k} value={k}>
            {ACT_LABEL[k]}
          </option>
        ))}
      </select>
      <label className="sr-only" htmlFor="activity-order">
        Order
      </label>
      <input
        id="activity-order"
        type="search"
        value={order}
        onChange={(e) => setOrder(e.target.value)}
        onBlur={() => {
          if (order.trim() !== (filters.order ?? '')) apply({ ...filters, order: order.trim() || undefined });
        }}
        placeholder="order id (Enter)"
        autoComplete="off"
        spellCheck={false}
        className={`${control} w-48 placeholder:text-zinc-500`}
      />
      {any ? (
        <button type="button" onClick={() => apply({})} className="text-sm text-zinc-600 underline underline-offset-2 hover:text-zinc-950 dark:text-zinc-400 dark:hover:text-white">
          clear filters
        </button>
      ) : null}
    </form>
  );
}

function ActsTable({ acts, now }: { acts: readonly Act[]; now: number }) {
  return (
    <table className={`${tableClass} mt-2`}>
      <thead className="hidden md:table-header-group">
        <tr>
          <th className={thClass}>arrived here</th>
          <th className={thClass}>writer&apos;s clock</th>
          <th className={thClass}>operator</th>
          <th className={thClass}>act</th>
          <th className={thClass}>order or agent</th>
          <th className={thClass}>reason</th>
          <th className={thClass}>verified</th>
        </tr>
      </thead>
      <tbody>
        {acts.map((a) => (
          <ActRow key={`${a.key}@${channelOfCard(a) ?? ''}`} act={a} now={now} />
        ))}
      </tbody>
    </table>
  );
}

function ActRow({ act: a, now }: { act: Act; now: number }) {
  const others = a.orders.filter((o) => o !== a.order_id);
  // A hub's act names its channel: its links go to that channel's pages.
  const ch = channelOfCard(a);
  return (
    <tr
      data-act={a.act}
      data-operator={a.operator}
      data-key={a.key}
      className="block border-b border-zinc-200 py-2 md:table-row md:border-0 md:py-0 dark:border-zinc-800"
    >
      <td className={`${cell} whitespace-nowrap`}>
        <CellLabel>arrived here</CellLabel>
        {a.arrival_ms !== null ? (
          <Ago ms={a.arrival_ms} now={now} />
        ) : (
          <span className="text-zinc-500 dark:text-zinc-400" title="A ledger line has no arrival of its own: it arrived at the latest when its ledger file last arrived here (this machine's clock)">
            ledger file <Ago ms={a.sort_ms} now={now} />
          </span>
        )}
      </td>
      <td className={`${cell} whitespace-nowrap text-zinc-700 dark:text-zinc-300`}>
        <CellLabel>writer&apos;s clock</CellLabel>
        <WriterClock text={a.writer_time} date />
      </td>
      <td className={cell}>
        <CellLabel>operator</CellLabel>
        <AgentLink name={a.operator} channel={ch} />
      </td>
      <td className={cell}>
        <CellLabel>act</CellLabel>
        <Badge tone={ACT_TONE[a.act]}>{ACT_LABEL[a.act]}</Badge>
        {ch ? (
          <span className="ml-1.5">
            <ChannelChip channel={ch} />
          </span>
        ) : null}
        {a.detail && a.act !== 'retire' ? <span className="ml-1.5 text-xs text-zinc-600 dark:text-zinc-400">{a.detail}</span> : null}
      </td>
      <td className={cell} data-subject>
        <CellLabel>subject</CellLabel>
        {a.order_id ? (
          <ItemLink href={`${orderHref(a.order_id, ch)}#timeline`} className="font-mono underline decoration-zinc-300 underline-offset-2 hover:decoration-current dark:decoration-zinc-600">
            {a.order_id}
          </ItemLink>
        ) : null}
        {a.order_id === null && a.agent ? (
          <ItemLink href={agentHref(a.agent, ch)} className="underline decoration-zinc-300 underline-offset-2 hover:decoration-current dark:decoration-zinc-600">
            {a.agent}
          </ItemLink>
        ) : null}
        {others.length ? (
          <span className="ml-1.5 text-xs text-zinc-600 dark:text-zinc-400">
            {a.act === 'supersede' ? 'new: ' : 'released '}
            {others.map((o, i) => (
              <span key={o}>
                {i > 0 ? ', ' : ''}
                <ItemLink href={`${orderHref(o, ch)}#timeline`} className="font-mono underline underline-offset-2">
                  {o}
                </ItemLink>
              </span>
            ))}
          </span>
        ) : null}
      </td>
      <td className={`${cell} max-w-sm`}>
        <CellLabel>reason</CellLabel>
        {a.reason ? (
          <span className="break-words text-zinc-900 dark:text-zinc-100" data-reason>
            {a.reason}
          </span>
        ) : a.record === null && a.ledger ? (
          <span className="break-words text-zinc-600 dark:text-zinc-400" title="the ledger line's own summary" data-reason="">
            “{a.ledger.summary}”
          </span>
        ) : (
          <span className="text-zinc-500 dark:text-zinc-400" data-reason="">
            none given
          </span>
        )}
      </td>
      <td className={`${cell} min-w-56`} data-verified={a.verified ? 'yes' : 'no'}>
        <CellLabel>verified</CellLabel>
        <Verification act={a} />
      </td>
    </tr>
  );
}

const ok = 'text-emerald-700 dark:text-emerald-400';
const bad = 'font-semibold text-red-700 dark:text-red-400';
const missing = 'text-amber-800 dark:text-amber-300';

const muted = 'text-zinc-600 dark:text-zinc-400';

/**
 * Whether the record's signature and the ledger line's chain and signature verify, in words; an
 * act only partly in the folder (a record without its line, a line without its record) says so,
 * and a line whose record was replaced by a later act names that file.
 */
function Verification({ act: a }: { act: Act }) {
  const r = a.record;
  const l = a.ledger;
  const partly = `⚠ partly written: ${a.partial ?? ''}`;
  return (
    <ul className="inline-block space-y-0.5 align-top text-xs md:block">
      <li className={r === null ? (a.replaced_by ? muted : missing) : r.verified ? ok : bad} title={r ? [r.path, ...r.also].join('\n') : undefined} data-partial={r === null && !a.replaced_by ? '' : undefined}>
        {r === null
          ? a.replaced_by
            ? `↻ its record was replaced by a later one: ${a.replaced_by}`
            : partly
          : r.verified
            ? `✓ record signed${r.also.length ? ` (and its ${r.also.length} release${r.also.length === 1 ? '' : 's'})` : ''}`
            : `✗ record: ${r.problem ?? 'does not verify'}`}
      </li>
      <li className={l === null ? missing : l.problem === null ? ok : bad} title={l ? `${l.path} line ${l.line}` : undefined} data-partial={l === null ? '' : undefined}>
        {l === null ? partly : l.problem === null ? `✓ ${l.path} line ${l.line} chains and is signed` : `✗ ${l.path}: ${l.problem}`}
      </li>
    </ul>
  );
}

function Ledgers({ ledgers }: { ledgers: readonly ActivityLedger[] }) {
  return (
    <Section title={`Ledgers read (${ledgers.length})`} id="ledgers" aside="each signer's hash-chained lines">
      {ledgers.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">No operator has a ledger file in the channel.</p>
      ) : (
        <ul className="space-y-1 text-sm">
          {ledgers.map((l) => (
            <li key={`${l.path}@${channelOfCard(l) ?? ''}`} data-ledger={l.path} className="flex flex-wrap items-baseline gap-x-2">
              {channelOfCard(l) ? <ChannelChip channel={channelOfCard(l) ?? ''} /> : null}
              <span className="font-mono text-xs">{l.path}</span>
              <span className="tabular-nums text-zinc-600 dark:text-zinc-400">
                {l.entries} line{l.entries === 1 ? '' : 's'}
              </span>
              {l.intact ? <Badge tone="done">intact</Badge> : <Badge tone="danger">broken{l.broken_at !== undefined ? ` at line ${l.broken_at}` : ''}</Badge>}
              {l.reason ? <span className="text-zinc-700 dark:text-zinc-300">{l.reason}</span> : null}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
