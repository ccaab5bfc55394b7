'use client';
import { useEffect, useMemo } from 'react';
import type { OrderResponse, OrderState } from '@/lib/api/types';
import { useOrder, useOrders, isNotFound } from '@/lib/client/api';
import { useServerNow } from '@/lib/client/clock';
import { ADVISORY_NOTE, heartbeatNote, isAdvisory, shownFlags, whyLines } from '@/lib/ui/why';
import { FlagBadge, LaneBadge, StateBadge } from '@/components/ui/badges';
import { AgentLink, boardHref, OrderLink } from '@/components/ui/links';
import { ChannelChip, ChannelScope } from '@/components/ui/channel';
import { Crumb, Fact, Facts, Loading, QueryError, Section, tableClass, tdClass, thClass } from '@/components/ui/page';
import { Ago, WriterClock } from '@/components/ui/time';
import { LocalLine } from '@/components/ui/local';
import { FERRY_STATE_LABEL, PROBLEM_LABEL, targetWords } from '@/lib/ui/labels';
import { utcClock } from '@/lib/ui/time';
import { OrderActions } from '@/components/actions/OrderActions';
import { LinkedText, linkedIds, SupersedeLinks } from './Supersede';
import { Timeline } from './Timeline';

/** The order page (of `channel`, in a hub): why it is where it is, its fields, its story, its runs and files. */
export function OrderView({ id, channel }: { id: string; channel?: string }) {
  const q = useOrder(id, channel);
  const now = useServerNow(q.data?.now_ms, q.dataUpdatedAt);
  useEffect(() => {
    if (q.data) document.title = `${id} (${q.data.card.state.replace('_', ' ')}) · claimboard`;
  }, [id, q.data]);

  if (q.isPending) return <Loading what={`order ${id}`} />;
  if (q.isError && !q.data) return <QueryError error={q.error} what={`order “${id}”`} retry={() => void q.refetch()} />;
  // Asked for one channel's order (a hub's links name it; the answer names its channel even with one served, so the URL decides): its card carries the channel, as a board card does, so an act on it names it, and every link on the page stays in it.
  const of = channel;
  const data = of ? { ...q.data, card: { ...q.data.card, channel: of } } : q.data;
  return (
    <ChannelScope channel={of}>
      <OrderDetail data={data} now={now} channel={of} />
    </ChannelScope>
  );
}

function OrderDetail({ data, now, channel }: { data: OrderResponse; now: number; channel: string | undefined }) {
  const { card, order } = data;
  const ctx = { nowMs: now, staleAfterMs: data.stale_after_ms };
  const lines = whyLines(card, ctx);
  const hb = heartbeatNote(card, now)?.replace(/^last heartbeat/, `${card.holder ?? 'the holder'}'s last heartbeat`) ?? null;
  const problems = data.files.filter((f) => f.status === 'problem');
  // Files with problems first, then by path.
  const files = [...data.files].sort((a, b) => Number(b.status === 'problem') - Number(a.status === 'problem') || a.path.localeCompare(b.path));

  return (
    <article className="mx-auto max-w-5xl px-4 py-5 sm:px-6">
      <Crumb href={boardHref('', channel)} label="Board" here="order" />
      <header className="mt-1">
        <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
          <h1 className="font-mono text-xl font-semibold tracking-tight break-all">{card.order_id}</h1>
          {channel ? <ChannelChip channel={channel} /> : null}
          <StateBadge state={card.state} />
          {/* The lane only when it is not the state's own name (stale in Stale, done in Done: once). */}
          {card.lane === card.state ? null : <LaneBadge lane={card.lane} />}
          {shownFlags(card).map((f) => (
            <FlagBadge key={f} flag={f} />
          ))}
        </div>
        <div
          className={`mt-3 rounded-md border-l-[3px] px-3 py-2 ${
            card.lane === 'attention'
              ? 'border-red-500 bg-red-50/70 dark:bg-red-950/30'
              : card.lane === 'stale'
                ? 'border-amber-500 bg-amber-50/70 dark:bg-amber-950/30'
                : 'border-zinc-300 bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900/50'
          }`}
        >
          <p className="text-base leading-relaxed text-zinc-900 dark:text-zinc-100" data-why="">
            {lines.map((l, i) => (
              <span key={i} className={i > 0 ? 'mt-1 block' : 'block'}>
                {l}
              </span>
            ))}
          </p>
          {card.notes && card.notes.length > 0 ? (
            <ul className="mt-1 space-y-0.5 text-sm text-zinc-700 dark:text-zinc-300" aria-label="notes" data-notes="">
              {card.notes.map((n) => (
                <li key={n}>
                  <LinkedText text={n} ids={linkedIds(card)} />
                </li>
              ))}
            </ul>
          ) : null}
          {card.ferry_note ? (
            <p className="mt-1 text-sm text-zinc-700 dark:text-zinc-300" data-ferry-note="">
              {card.ferry_note}
            </p>
          ) : null}
          {isAdvisory(card) ? <p className="mt-1 text-sm text-amber-800 dark:text-amber-300">{ADVISORY_NOTE}</p> : null}
          {card.unverified ? (
            <p className="mt-1 text-sm font-medium text-sky-800 dark:text-sky-300" data-unverified="">
              Unverified: this card was read before its signatures were checked and may show a forged record; the index is checking them now, and actions wait until it has.
            </p>
          ) : null}
          {hb ? <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{hb}</p> : null}
          <LocalLine card={card} className="text-sm" />
          {card.since_ms !== undefined ? (
            <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
              stale since {utcClock(card.since_ms, { date: true })} UTC (this machine&apos;s clock, <Ago ms={card.since_ms} now={now} />)
            </p>
          ) : null}
        </div>
        <p className="mt-2 text-sm text-zinc-700 dark:text-zinc-300">
          {card.holder ? (
            <>
              held by <AgentLink name={card.holder} className="font-medium" />
              {card.holder_fresh === true ? ' (heartbeat fresh)' : card.holder_fresh === false ? ' (heartbeat not fresh)' : ''}
            </>
          ) : (
            'no holder'
          )}
          {card.target ? (
            <>
              {' · an operator decision on it names '}
              <span title={card.target} data-target={card.target}>
                {targetWords(card.target, card.holder)}
              </span>
            </>
          ) : null}
        </p>
        <SupersedeLinks card={card} />
        <OrderActions card={card} dependents={data.dependents} />
      </header>

      <Section title="Order" id="order-fields">
        <Facts>
          <Fact term="project">{order.project_id}</Fact>
          <Fact term="issued by">
            <AgentLink name={order.issued_by} />
          </Fact>
          <Fact term="assigned to">{order.assigned_to ? <AgentLink name={order.assigned_to} /> : <span className="text-zinc-500 dark:text-zinc-400">anyone (first claim)</span>}</Fact>
          <Fact term="created">
            <WriterClock text={order.created_at} date /> <span className="text-xs text-zinc-500 dark:text-zinc-400">(issuer&apos;s clock)</span>
          </Fact>
          <Fact term="review">
            {order.requires_review ? 'required' : 'not required'}
            {order.requires_approval ? ' · approval required' : ''}
          </Fact>
          <Fact term="ferry reads">
            <span data-ferry-state={card.ferry.state}>
              {FERRY_STATE_LABEL[card.ferry.state]}
              {card.ferry.holder ? ` (${card.ferry.holder})` : ''}
            </span>
            {card.ferry_note ? <span className="text-xs text-zinc-500 dark:text-zinc-400"> (claimboard differs: see above)</span> : null}
          </Fact>
          <Fact term="latest result">{card.latest_revision === null ? 'none' : `revision ${card.latest_revision}`}</Fact>
          <Fact term="depends on">
            <Dependencies ids={order.depends_on} missing={card.missing_dependencies} channel={channel} />
          </Fact>
          <Fact term="needed by">
            {data.dependents.length === 0 ? (
              <span className="text-zinc-500 dark:text-zinc-400">no order depends on it</span>
            ) : (
              <ul className="flex flex-wrap gap-x-3 gap-y-1">
                {data.dependents.map((d) => (
                  <li key={d.order_id} className="flex items-center gap-1.5">
                    <OrderLink id={d.order_id} /> <StateBadge state={d.state} />
                  </li>
                ))}
              </ul>
            )}
          </Fact>
        </Facts>
        <Payload payload={order.payload} />
      </Section>

      <Section title="Timeline" id="timeline" aside="arrival here and writer clock, both in UTC">
        <Timeline events={data.timeline} now={now} />
      </Section>

      <Section title="Runs seen" id="runs" aside="heartbeats as they arrived here">
        {data.runs.length === 0 ? (
          <p className="text-sm text-zinc-500 dark:text-zinc-400">No heartbeat has arrived for this order.</p>
        ) : (
          <div className="overflow-x-auto">
            <table className={tableClass}>
              <thead>
                <tr>
                  <th className={thClass}>agent</th>
                  <th className={thClass}>run</th>
                  <th className={thClass}>pid</th>
                  <th className={thClass}>first heartbeat arrived</th>
                  <th className={thClass}>last heartbeat arrived</th>
                  <th className={thClass}>its clock said (last)</th>
                  <th className={`${thClass} text-right`}>beats</th>
                </tr>
              </thead>
              <tbody>
                {data.runs.map((r) => (
                  <tr key={`${r.agent}:${r.run}`}>
                    <td className={tdClass}>
                      <AgentLink name={r.agent} />
                      {r.agent === card.holder ? <span className="ml-1 text-xs text-zinc-500 dark:text-zinc-400">(holder)</span> : null}
                    </td>
                    <td className={`${tdClass} font-mono text-xs`} title={r.run}>
                      {r.run.length > 12 ? `${r.run.slice(0, 12)}…` : r.run}
                    </td>
                    <td className={`${tdClass} tabular-nums`}>{r.pid}</td>
                    <td className={`${tdClass} tabular-nums`}>
                      {utcClock(r.first_arrival_ms)} · <Ago ms={r.first_arrival_ms} now={now} />
                    </td>
                    <td className={`${tdClass} tabular-nums`}>
                      {utcClock(r.last_arrival_ms)} · <Ago ms={r.last_arrival_ms} now={now} />
                    </td>
                    <td className={tdClass}>
                      <WriterClock text={r.last_writer_at} />
                    </td>
                    <td className={`${tdClass} text-right tabular-nums`}>{r.beats}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>

      <Section
        title="Files"
        id="files"
        aside={problems.length > 0 ? <span className="font-medium text-red-700 dark:text-red-300">{problems.length} with problems</span> : 'all read'}
      >
        <div className="overflow-x-auto">
          <table className={tableClass}>
            <thead>
              <tr>
                <th className={thClass}>path</th>
                <th className={thClass}>arrived</th>
                <th className={thClass}>read as</th>
                <th className={thClass}>detail</th>
              </tr>
            </thead>
            <tbody>
              {files.map((f) => {
                const bad = f.status === 'problem';
                return (
                  <tr key={f.path} data-problem={f.problem} className={bad ? 'bg-red-50 dark:bg-red-950/30' : undefined}>
                    <td className={`${tdClass} font-mono text-xs break-all`}>{f.path}</td>
                    <td className={`${tdClass} text-xs whitespace-nowrap tabular-nums`}>
                      {utcClock(f.arrival_ms)} · <Ago ms={f.arrival_ms} now={now} />
                    </td>
                    <td className={tdClass}>
                      {bad && f.problem ? (
                        <span className="font-mono text-xs font-semibold text-red-800 dark:text-red-300" title={PROBLEM_LABEL[f.problem]}>
                          {f.problem}
                        </span>
                      ) : (
                        <span className="text-xs text-zinc-600 dark:text-zinc-400">{f.kind ?? 'record'}</span>
                      )}
                    </td>
                    <td className={`${tdClass} text-xs ${bad ? 'text-red-900 dark:text-red-200' : 'text-zinc-600 dark:text-zinc-400'}`}>
                      {f.detail ?? (bad && f.problem ? PROBLEM_LABEL[f.problem] : '')}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </Section>
    </article>
  );
}

/** Dependencies with their current states (each fetched as its own order, of the order's channel in a hub). */
function Dependencies({ ids, missing, channel }: { ids: readonly string[]; missing: readonly string[]; channel: string | undefined }) {
  const present = useMemo(() => ids.filter((d) => !missing.includes(d)), [ids, missing]);
  const results = useOrders(present, channel);
  if (ids.length === 0) return <span className="text-zinc-500 dark:text-zinc-400">nothing</span>;
  const stateOf = new Map<string, OrderState | 'unknown' | 'missing'>();
  present.forEach((d, i) => {
    const r = results[i];
    stateOf.set(d, r?.data ? r.data.card.state : r && isNotFound(r.error) ? 'missing' : 'unknown');
  });
  return (
    <ul className="flex flex-wrap gap-x-3 gap-y-1">
      {ids.map((d) => {
        const s = missing.includes(d) ? 'missing' : (stateOf.get(d) ?? 'unknown');
        return (
          <li key={d} className="flex items-center gap-1.5">
            {s === 'missing' ? (
              <>
                <span className="font-mono">{d}</span>
                <span className="text-xs font-medium text-red-700 dark:text-red-300">not an order here</span>
              </>
            ) : (
              <>
                <OrderLink id={d} />
                {s === 'unknown' ? <span className="text-xs text-zinc-500 dark:text-zinc-400">…</span> : <StateBadge state={s} />}
              </>
            )}
          </li>
        );
      })}
    </ul>
  );
}

function Payload({ payload }: { payload: unknown }) {
  const text = useMemo(() => {
    try {
      return JSON.stringify(payload, null, 2) ?? 'null';
    } catch {
      return String(payload);
    }
  }, [payload]);
  const lines = text.split('\n').length;
  return (
    <details className="mt-4 rounded-md border border-zinc-200 dark:border-zinc-800" open={lines <= 12}>
      <summary className="cursor-pointer px-3 py-1.5 text-sm font-medium select-none">
        Payload <span className="text-xs font-normal text-zinc-500 dark:text-zinc-400">({lines} {lines === 1 ? 'line' : 'lines'})</span>
      </summary>
      <pre className="max-h-[28rem] overflow-auto border-t border-zinc-200 bg-zinc-50 px-3 py-2 font-mono text-xs leading-relaxed text-zinc-800 dark:border-zinc-800 dark:bg-zinc-900/60 dark:text-zinc-200">
        {text}
      </pre>
    </details>
  );
}
