'use client';
import { useProblems } from '@/lib/client/api';
import { Badge } from '@/components/ui/badges';
import { OrderLink } from '@/components/ui/links';
import { Loading, QueryError, Section, tableClass, tdClass, thClass } from '@/components/ui/page';
import { PROBLEM_LABEL } from '@/lib/ui/labels';
import { ChannelChip, ChannelScope } from '@/components/ui/channel';
import { channelOfCard } from '@/lib/ui/card-channel';

/**
 * Every problem row of the channel and the ledger files with their chains. In a hub, of
 * `channel`, or of every channel, each row with its channel.
 */
export function ProblemsView({ channel }: { channel?: string }) {
  const q = useProblems(channel);
  if (q.isPending) return <Loading what="the problems" />;
  if (q.isError && !q.data) return <QueryError error={q.error} what="the problems" retry={() => void q.refetch()} />;
  const { problems, ledger } = q.data;
  const ledgerFiles = Object.entries(ledger).sort(([a], [b]) => a.localeCompare(b));
  // Every channel's problems at once: each row says its channel.
  const merged = !channel && problems.some((p) => channelOfCard(p) !== undefined);

  return (
    <ChannelScope channel={channel}>
      <div className="mx-auto max-w-6xl px-4 py-5 sm:px-6">
        <h1 className="flex items-center gap-2 text-lg font-semibold tracking-tight">Problems {channel ? <ChannelChip channel={channel} /> : null}</h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
          Files claimboard could not use, one row each. The rest of the folder is read as if they were absent; nothing here is repaired
          automatically.
        </p>

        <Section title={`Files with problems (${problems.length})`} id="problems">
          {problems.length === 0 ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">None: every file was read, parsed and verified.</p>
          ) : (
            <div className="overflow-x-auto">
              <table className={tableClass}>
                <thead>
                  <tr>
                    {merged ? <th className={thClass}>channel</th> : null}
                    <th className={thClass}>path</th>
                    <th className={thClass}>problem</th>
                    <th className={thClass}>detail</th>
                    <th className={`${thClass} text-right`}>line</th>
                    <th className={thClass}>order</th>
                  </tr>
                </thead>
                <tbody>
                  {problems.map((p, i) => (
                    <tr key={`${p.path}:${p.problem}:${i}`} data-problem={p.problem}>
                      {merged ? (
                        <td className={tdClass}>
                          <ChannelChip channel={channelOfCard(p) ?? ''} />
                        </td>
                      ) : null}
                      <td className={`${tdClass} font-mono text-xs break-all`}>{p.path}</td>
                      <td className={tdClass}>
                        <span className="font-mono text-xs font-semibold text-red-800 dark:text-red-300" title={PROBLEM_LABEL[p.problem]}>
                          {p.problem}
                        </span>
                      </td>
                      <td className={`${tdClass} text-sm text-zinc-700 dark:text-zinc-300`}>{p.detail}</td>
                      <td className={`${tdClass} text-right tabular-nums`}>{p.line ?? ''}</td>
                      <td className={tdClass}>{p.order_id ? <OrderLink id={p.order_id} channel={channelOfCard(p)} /> : <span className="text-xs text-zinc-500 dark:text-zinc-400">channel</span>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Section>

        <Section title={`Ledger files (${ledgerFiles.length})`} id="ledger" aside="signed, hash-chained audit lines">
          {ledgerFiles.length === 0 ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">No ledger files in the channel.</p>
          ) : (
            <table className={tableClass}>
              <thead>
                <tr>
                  <th className={thClass}>file</th>
                  <th className={`${thClass} text-right`}>entries read</th>
                  <th className={thClass}>chain</th>
                </tr>
              </thead>
              <tbody>
                {ledgerFiles.map(([file, l]) => (
                  <tr key={file} data-ledger={file}>
                    <td className={`${tdClass} font-mono text-xs`}>{file}</td>
                    <td className={`${tdClass} text-right tabular-nums`}>{l.entries}</td>
                    <td className={tdClass}>
                      {l.intact ? (
                        <Badge tone="done">intact</Badge>
                      ) : (
                        <span className="flex items-center gap-2">
                          <Badge tone="danger">broken</Badge>
                          {l.broken_at !== undefined ? <span className="text-sm">at line {l.broken_at}</span> : null}
                        </span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Section>
      </div>
    </ChannelScope>
  );
}
