'use client';
/**
 * The links between a superseded order and the one issued to do its work (both pages), and the
 * derivation's notes with the orders they name linked.
 */
import type { Card } from '@/lib/api/types';
import { useOrders } from '@/lib/client/api';
import { StateBadge } from '@/components/ui/badges';
import { OrderLink } from '@/components/ui/links';
import { channelOfCard } from '@/lib/ui/card-channel';
import { idSegments } from '@/lib/ui/segments';

/** A sentence with the named orders linked. */
export function LinkedText({ text, ids }: { text: string; ids: readonly string[] }) {
  return (
    <>
      {idSegments(text, ids).map((s, i) => (s.id ? <OrderLink key={i} id={s.id} /> : <span key={i}>{s.text}</span>))}
    </>
  );
}

/** The orders a card's notes may name (for LinkedText). */
export const linkedIds = (card: Card): string[] => [card.superseded_by, card.supersedes].filter((x): x is string => typeof x === 'string');

/**
 * "Superseded by X" on the old order, "Supersedes Y" on the new one, each with the other's state
 * as this page reads it now. The new order's `supersedes` is its issuer's word (unsigned): it is
 * confirmed when the old order carries a signed supersede record naming it.
 */
export function SupersedeLinks({ card }: { card: Card }) {
  const ids = linkedIds(card);
  // The other orders are of the card's channel (in a hub).
  const others = useOrders(ids, channelOfCard(card));
  if (ids.length === 0) return null;
  const other = (id: string) => others[ids.indexOf(id)]?.data?.card;
  const by = card.superseded_by;
  const old = card.supersedes;
  const oldCard = old ? other(old) : undefined;
  return (
    <div className="mt-2 flex flex-col gap-1 text-sm" data-supersede-links="">
      {by ? (
        <p className="flex flex-wrap items-center gap-x-1.5 gap-y-0.5" data-superseded-by={by}>
          <span className="font-semibold">Superseded by</span> <OrderLink id={by} /> <OtherState card={other(by)} />
          <span className="text-zinc-600 dark:text-zinc-400">— the fleet does its work there</span>
        </p>
      ) : null}
      {old ? (
        <p className="flex flex-wrap items-center gap-x-1.5 gap-y-0.5" data-supersedes={old}>
          <span className="font-semibold">Supersedes</span> <OrderLink id={old} /> <OtherState card={oldCard} />
          {oldCard && oldCard.superseded_by !== card.order_id ? (
            <span className="text-amber-800 dark:text-amber-300">— its issuer says so, but {old} has no signed supersede record naming {card.order_id}</span>
          ) : (
            <span className="text-zinc-600 dark:text-zinc-400">— issued to do its work</span>
          )}
        </p>
      ) : null}
    </div>
  );
}

function OtherState({ card }: { card: Card | undefined }) {
  if (!card) return <span className="text-xs text-zinc-500 dark:text-zinc-400">…</span>;
  return (
    <>
      <StateBadge state={card.state} />
      {card.holder ? <span className="text-xs text-zinc-600 dark:text-zinc-400">{card.assigned_to ? `addressed to ${card.holder}` : `held by ${card.holder}`}</span> : null}
    </>
  );
}
