/**
 * The numbers beside the fleet history (lib/ledger/hold-numbers.ts): per agent in the window, and
 * fleet-wide. Durations are on this machine's arrival clock.
 */
import type { FleetNumbers, HistoryAgent } from '@/lib/api/types';
import { formatDuration } from '@/lib/ui/time';
import { OrderLink } from '@/components/ui/links';
import { Section, tableClass, tdClass, thClass } from '@/components/ui/page';

const num = (n: number) => n.toLocaleString('en');
const dur = (ms: number | null) => (ms === null ? '–' : formatDuration(ms));

export function FleetNumbersPanel({ fleet, staleAfterMs }: { fleet: FleetNumbers; staleAfterMs: number }) {
  const s = fleet.stale;
  return (
    <Section title="The fleet in this window" id="history-fleet">
      <dl className="grid grid-cols-[max-content_1fr] gap-x-6 gap-y-1.5 text-sm" data-fleet-numbers>
        <dt className="text-zinc-500 dark:text-zinc-400">Holds</dt>
        <dd>{num(fleet.holds)}</dd>
        <dt className="text-zinc-500 dark:text-zinc-400">Claims that went stale</dt>
        <dd>
          {num(s.went_stale)}{' '}
          <span className="text-zinc-600 dark:text-zinc-400">(silent here for more than {formatDuration(staleAfterMs)})</span>
        </dd>
        <dt className="text-zinc-500 dark:text-zinc-400">…a person acted</dt>
        <dd>
          {num(s.acted)}
          {s.acted > 0 ? `: after ${dur(s.until_act_p50_ms)} (median), ${dur(s.until_act_max_ms)} at the longest, from turning stale to the re-queue, retire or supersede` : ''}
        </dd>
        <dt className="text-zinc-500 dark:text-zinc-400">…still waiting</dt>
        <dd>
          {num(s.waiting)}
          {s.waiting > 0 ? `, the longest for ${dur(s.longest_wait_ms)}` : ''}
        </dd>
        <dt className="text-zinc-500 dark:text-zinc-400">…came back by itself</dt>
        <dd>{num(s.recovered)}</dd>
        <dt className="text-zinc-500 dark:text-zinc-400">…ended by the agent</dt>
        <dd>{num(s.ended_by_agent)} (its own release, result or give-up)</dd>
        <dt className="text-zinc-500 dark:text-zinc-400">Work done twice</dt>
        <dd>
          {fleet.twice.orders === 0 ? (
            'none'
          ) : (
            <>
              {num(fleet.twice.orders)} {fleet.twice.orders === 1 ? 'order' : 'orders'} with results by more than one agent:{' '}
              {fleet.twice.order_ids.map((id, i) => (
                <span key={id}>
                  {i > 0 ? ', ' : ''}
                  <OrderLink id={id} />
                </span>
              ))}
              {fleet.twice.orders > fleet.twice.order_ids.length ? ', …' : ''}
            </>
          )}
        </dd>
      </dl>
    </Section>
  );
}

export function AgentNumbersTable({ agents }: { agents: readonly HistoryAgent[] }) {
  const right = `${tdClass} text-right tabular-nums`;
  return (
    <Section title="Per agent in this window" id="history-agents">
      {/* Focusable: a keyboard can scroll it where the screen is narrower than the table. */}
      <div className="overflow-x-auto" tabIndex={0} role="region" aria-label="Per agent in this window (scrolls sideways)">
        <table className={`${tableClass} min-w-[52rem]`} data-agent-numbers>
          <caption className="sr-only">Per agent: orders held, how its holds ended in the window, time held and time silent while holding</caption>
          <thead>
            <tr>
              <th className={thClass}>agent</th>
              <th className={`${thClass} text-right`}>orders held</th>
              <th className={`${thClass} text-right`}>finished</th>
              <th className={`${thClass} text-right`}>released by itself</th>
              <th className={`${thClass} text-right`}>by an operator</th>
              <th className={`${thClass} text-right`}>by a retire</th>
              <th className={`${thClass} text-right`}>gave up</th>
              <th className={`${thClass} text-right`}>superseded, lost</th>
              <th className={`${thClass} text-right`}>still held</th>
              <th className={`${thClass} text-right`}>time held</th>
              <th className={`${thClass} text-right`}>silent while holding</th>
            </tr>
          </thead>
          <tbody>
            {agents.map((a) => {
              const e = a.numbers.endings;
              return (
                <tr key={a.name} data-agent={a.name}>
                  <th scope="row" className={`${tdClass} font-medium`}>
                    {a.name} <span className="font-normal text-zinc-500 dark:text-zinc-400">{a.role}</span>
                  </th>
                  <td className={right}>{num(a.numbers.orders)}</td>
                  <td className={right}>{num(e.finished)}</td>
                  <td className={right}>{num(e.released_self)}</td>
                  <td className={right}>{num(e.requeued)}</td>
                  <td className={right}>{num(e.retired)}</td>
                  <td className={right}>{num(e.gave_up)}</td>
                  <td className={right}>
                    {num(e.superseded)}, {num(e.lost)}
                  </td>
                  <td className={right}>{num(e.held)}</td>
                  <td className={right}>{formatDuration(a.numbers.held_ms)}</td>
                  <td className={right}>{a.numbers.silent_ms > 0 ? formatDuration(a.numbers.silent_ms) : '–'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </Section>
  );
}
