'use client';
import { PageLink } from '@/components/ui/links';
import { usePathname } from 'next/navigation';
import { useBoard } from '@/lib/client/api';
import { useLiveStatus } from '@/lib/client/live';
import { KeyButton } from '@/components/actions/KeyPanel';
import { AlertsStatus } from './AlertsStatus';
import { IndexHealthBanner } from './IndexHealthBanner';
import type { HubBoardResponse } from '@/lib/api/types';
import { channelLines, firstDegraded } from '@/lib/ui/channel-health';

const NO_FILTERS = {};

/** Top navigation: Board · Agents · Activity · History (the fleet history) · Threshold (the stale-threshold plots) · Problems, the channel folder, the live indicator, and the operator key. */
export function Nav() {
  const pathname = usePathname();
  const board = useBoard(NO_FILTERS);
  const live = useLiveStatus();
  const problems = board.data?.problem_count ?? 0;
  const hub = (board.data as Partial<HubBoardResponse> | undefined)?.hub === true ? (board.data as HubBoardResponse) : null;

  const item = (href: string, label: React.ReactNode, active: boolean) => (
    <PageLink
      href={href}
      aria-current={active ? 'page' : undefined}
      className={`inline-flex shrink-0 items-center rounded-md px-2 py-1 text-sm font-medium pointer-coarse:min-h-11 pointer-coarse:px-1.5 sm:pointer-coarse:px-3 ${
        active
          ? 'bg-zinc-200/70 text-zinc-950 dark:bg-zinc-800 dark:text-white'
          : 'text-zinc-600 hover:text-zinc-950 dark:text-zinc-400 dark:hover:text-white'
      }`}
    >
      {label}
    </PageLink>
  );

  return (
    <header className="sticky top-0 z-20 border-b border-zinc-200 bg-white/95 backdrop-blur dark:border-zinc-800 dark:bg-zinc-950/95">
      <nav aria-label="Main" className="flex flex-wrap items-center gap-x-4 px-4 max-md:py-1 md:h-12 md:flex-nowrap">
        <PageLink href="/" className="font-semibold tracking-tight text-zinc-950 dark:text-white">
          claimboard
        </PageLink>
        {/* Six links, Problems with its count: on a 390 px phone the first five fill a row (about 355 px of 358) and the rest wrap to a second rather than scroll sideways. */}
        <div className="flex items-center gap-1 max-md:order-last max-md:-ml-2 max-md:basis-full max-md:flex-wrap">
          {item('/', 'Board', pathname === '/' || pathname.startsWith('/orders'))}
          {item('/agents', 'Agents', pathname.startsWith('/agents'))}
          {item('/activity', 'Activity', pathname.startsWith('/activity'))}
          {item('/history', 'History', pathname.startsWith('/history'))}
          {item('/tuning', 'Threshold', pathname.startsWith('/tuning'))}
          {item(
            '/problems',
            <>
              Problems
              {problems > 0 ? (
                <span className="ml-1.5 rounded-full bg-red-600 px-1.5 text-xs font-semibold text-white tabular-nums dark:bg-red-500 dark:text-red-950">
                  {problems}
                </span>
              ) : null}
            </>,
            pathname.startsWith('/problems'),
          )}
        </div>
        <div className="ml-auto flex min-w-0 items-center gap-4">
          {hub ? (
            <p className="hidden min-w-0 truncate text-xs text-zinc-500 sm:block dark:text-zinc-400" title={channelLines(hub.channels, hub.channel_health).map((l) => `${l.name}: ${l.words}`).join('\n')}>
              {hubCount(hub)}
            </p>
          ) : board.data ? (
            <p className="hidden min-w-0 truncate font-mono text-xs text-zinc-500 sm:block dark:text-zinc-400" title={`channel folder: ${board.data.channel}`}>
              <span className="sr-only">channel folder: </span>
              {board.data.channel}
            </p>
          ) : null}
          {board.data && !board.data.actions_enabled ? (
            <span className="hidden text-xs text-zinc-500 md:inline dark:text-zinc-400" title="This server does not accept operator actions">
              read-only
            </span>
          ) : null}
          <AlertsStatus />
          <LiveDot connected={live.connected} />
          <KeyButton />
        </div>
      </nav>
      <IndexingBanner />
      <IndexHealthBanner health={board.data?.index_health} channel={hub ? firstDegraded(hub.channel_health) : null} />
    </header>
  );
}

/** A hub's channels in the header: how many are served, and how many are gone or not current (each one's words in the title). */
function hubCount(hub: HubBoardResponse): string {
  const lines = channelLines(hub.channels, hub.channel_health);
  const served = hub.channels.filter((c) => c.state === 'served').length;
  const gone = lines.filter((l) => l.tone === 'gone').length;
  const warn = lines.filter((l) => l.tone === 'warn').length;
  return [`${served} ${served === 1 ? 'channel' : 'channels'}`, ...(warn > 0 ? [`${warn} not current`] : []), ...(gone > 0 ? [`${gone} gone`] : [])].join(' · ');
}

function LiveDot({ connected }: { connected: boolean }) {
  return (
    <span
      data-live={connected ? 'on' : 'off'}
      className="flex shrink-0 items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-400"
      title={connected ? 'Live: changes in the folder show within a second' : 'Disconnected from live updates: reconnecting; pages refresh every 10 s meanwhile'}
    >
      <span className="relative flex size-2.5" aria-hidden="true">
        {connected ? <span className="absolute inline-flex size-full animate-ping-thrice rounded-full bg-emerald-400 opacity-40 motion-reduce:hidden" /> : null}
        <span className={`relative inline-flex size-2.5 rounded-full ${connected ? 'bg-emerald-500' : 'bg-zinc-400 dark:bg-zinc-600'}`} />
      </span>
      {connected ? 'live' : 'offline'}
    </span>
  );
}

/** The board is shown, its signatures being checked behind it (a cold index, lib/index/workers/cold-pass.ts). */
function VerifyingBanner({ checked, total }: { checked: number; total: number }) {
  const pct = total > 0 ? Math.min(100, Math.floor((checked / total) * 100)) : 0;
  return (
    <div role="status" className="border-t border-sky-200 bg-sky-50 px-4 py-1.5 text-sm text-sky-950 dark:border-sky-900 dark:bg-sky-950/60 dark:text-sky-100">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
        <span className="font-medium">Checking signatures behind the board…</span>
        <span className="tabular-nums">
          {checked.toLocaleString('en')} of {total.toLocaleString('en')} verified ({pct} %)
        </span>
        <span className="text-sky-800 dark:text-sky-300">cards marked unverified may show a forged record; their actions wait</span>
        <span className="h-1.5 w-40 overflow-hidden rounded-full bg-sky-200 dark:bg-sky-900" aria-hidden="true">
          <span className="block h-full bg-sky-600 dark:bg-sky-400" style={{ width: `${pct}%` }} />
        </span>
      </div>
    </div>
  );
}

/** While the first index of a large folder runs: what has been seen, read and verified so far. */
function IndexingBanner() {
  const board = useBoard(NO_FILTERS);
  const p = board.data?.progress;
  if (!p || p.phase === 'ready') return null;
  if (p.phase === 'verifying') return <VerifyingBanner checked={p.signatures_checked ?? 0} total={p.signatures_to_check ?? 0} />;
  const pct = p.files_seen > 0 ? Math.min(100, Math.round((p.files_read / p.files_seen) * 100)) : 0;
  return (
    <div role="status" className="border-t border-sky-200 bg-sky-50 px-4 py-1.5 text-sm text-sky-950 dark:border-sky-900 dark:bg-sky-950/60 dark:text-sky-100">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
        <span className="font-medium">Indexing the channel ({p.phase})…</span>
        <span className="tabular-nums">
          {p.files_seen.toLocaleString('en')} files seen · {p.files_read.toLocaleString('en')} read · {p.files_verified.toLocaleString('en')} verified
        </span>
        <span className="text-sky-800 dark:text-sky-300">the board fills in as it goes</span>
        <span className="h-1.5 w-40 overflow-hidden rounded-full bg-sky-200 dark:bg-sky-900" aria-hidden="true">
          <span className="block h-full bg-sky-600 dark:bg-sky-400" style={{ width: `${pct}%` }} />
        </span>
      </div>
    </div>
  );
}
