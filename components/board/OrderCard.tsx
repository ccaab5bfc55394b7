'use client';
import type { Lane } from '@/lib/ledger/derive';
import type { BoardCard } from '@/lib/api/types';
import { LocalLine } from '@/components/ui/local';
import { CardActions, SelectCard } from '@/components/actions/CardActions';
import { FlagBadge, StateBadge } from '@/components/ui/badges';
import { AgentLink, OrderLink } from '@/components/ui/links';
import { channelOfCard } from '@/lib/ui/card-channel';
import { ADVISORY_NOTE, heartbeatNote, isAdvisory, shownFlags, whyLines, type WhyContext } from '@/lib/ui/why';

/** An order id after "superseded by": whole on the next line when it does not fit, cut only when longer than the card. */
const SUPERSEDE_LINK = 'inline-block max-w-full truncate align-bottom text-zinc-800 dark:text-zinc-200';

/**
 * One order on the board: id (to its page), state, the sentence saying why it is where it is,
 * holder (to the agent page), flags, and the holder's heartbeat with both clocks.
 */
export function OrderCard({
  card,
  ctx,
  onFocusCard,
  headingLevel = 3,
  inStaleLane = false,
  showChannel = false,
  actionsLane,
}: {
  card: BoardCard;
  ctx: WhyContext;
  onFocusCard?: () => void;
  headingLevel?: 3 | 4;
  /** In the Stale lane, whose header already carries the advisory note. */
  inStaleLane?: boolean;
  /** Several channels are served: the card shows its channel (a chip), and its links name it. */
  showChannel?: boolean;
  /** In the Needs attention or Stale lane: the action menu and the bulk checkbox, for this lane's selection. */
  actionsLane?: Lane;
}) {
  const lines = whyLines(card, ctx);
  // A hub's cards name their channel (lib/api/types.ts HubCard); with several served, links carry it so the order page reads that channel's order.
  const channel = showChannel ? channelOfCard(card) : undefined;
  const flags = shownFlags(card);
  const hb = card.state === 'claimed' || card.state === 'stale' || card.state === 'changes_requested' ? heartbeatNote(card, ctx.nowMs) : null;
  const H = headingLevel === 3 ? 'h3' : 'h4';
  const urgent =
    card.lane === 'attention'
      ? 'border-l-red-500 dark:border-l-red-500'
      : card.lane === 'stale'
        ? 'border-l-amber-500 dark:border-l-amber-400'
        : 'border-l-zinc-200 dark:border-l-zinc-800';
  return (
    <article
      data-order={card.order_id}
      data-state={card.state}
      className={`rounded-md border border-l-[3px] border-zinc-200 bg-white p-2.5 shadow-xs focus-within:ring-2 focus-within:ring-sky-500 dark:border-zinc-800 dark:bg-zinc-900 dark:focus-within:ring-sky-400 ${urgent}`}
      onFocus={onFocusCard}
    >
      <div className="flex flex-wrap items-start justify-between gap-x-2 gap-y-0.5">
        <div className="flex min-w-0 items-start gap-1.5">
          {actionsLane ? <SelectCard card={card} lane={actionsLane} /> : null}
          <H className="min-w-0 text-sm leading-5 font-semibold break-words">
            <OrderLink id={card.order_id} channel={channel} data-card-link="" className="outline-none" />
          </H>
          {channel ? (
            <span data-channel={channel} title={`channel ${channel}`} className="mt-0.5 shrink-0 rounded border border-zinc-300 px-1 font-mono text-[11px] leading-4 text-zinc-700 dark:border-zinc-700 dark:text-zinc-300">
              {channel}
            </span>
          ) : null}
        </div>
        <StateBadge state={card.state} />
      </div>
      <p className="mt-1 text-[13px] leading-snug text-zinc-800 dark:text-zinc-200">
        {lines.map((l, i) => (
          <span key={i} className={i > 0 ? 'mt-1 block' : 'block'}>
            {l}
          </span>
        ))}
      </p>
      {card.unverified ? (
        <p className="mt-1 text-xs font-medium text-sky-800 dark:text-sky-300" data-unverified="">
          Unverified: signatures not checked yet
        </p>
      ) : null}
      {isAdvisory(card) && !inStaleLane ? (
        <p className="mt-1 text-xs text-amber-800 dark:text-amber-300/90">{ADVISORY_NOTE}</p>
      ) : null}
      <LocalLine card={card} onlyWhenItMatters />
      {flags.length > 0 ? (
        <ul className="mt-1.5 flex flex-wrap gap-1" aria-label="attention flags">
          {flags.map((f) => (
            <li key={f}>
              <FlagBadge flag={f} />
            </li>
          ))}
        </ul>
      ) : null}
      <p className="mt-1.5 flex flex-wrap gap-x-2 text-xs text-zinc-600 dark:text-zinc-400">
        <span>
          {card.holder ? (
            <>
              holder <AgentLink name={card.holder} className="text-zinc-800 dark:text-zinc-200" />
            </>
          ) : (
            'no holder'
          )}
        </span>
        <span aria-hidden="true">·</span>
        <span className="truncate">project {card.project_id}</span>
        {card.latest_revision !== null ? (
          <>
            <span aria-hidden="true">·</span>
            <span>rev {card.latest_revision}</span>
          </>
        ) : null}
      </p>
      {card.superseded_by || card.supersedes ? (
        <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400" title={card.superseded_by ? `superseded by ${card.superseded_by}` : `supersedes ${card.supersedes}`}>
          {card.superseded_by ? (
            <span data-superseded-by={card.superseded_by}>
              superseded by <OrderLink id={card.superseded_by} channel={channel} className={SUPERSEDE_LINK} />
            </span>
          ) : (
            <span data-supersedes={card.supersedes}>
              supersedes <OrderLink id={card.supersedes ?? ''} channel={channel} className={SUPERSEDE_LINK} />
            </span>
          )}
        </p>
      ) : null}
      {hb ? <p className="mt-0.5 text-xs text-zinc-500 dark:text-zinc-400">{hb}</p> : null}
      {actionsLane ? <CardActions card={card} /> : null}
    </article>
  );
}
