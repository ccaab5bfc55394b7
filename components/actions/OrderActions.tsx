'use client';
/**
 * Operator actions on an order's page: re-queue (a held order that is stale, given up, or held by
 * a retired agent; shown disabled with the reason while the holder's run is live), acknowledge
 * (a give-up), reopen (done, accepted or closed: board only), supersede (a new order for its work:
 * what moves an addressed order in ferry, and "do it again in ferry" for a finished one). Each
 * opens its dialog; each the operator may not take is disabled with the reason in words.
 */
import { channelOfCard } from '@/lib/ui/card-channel';
import type { Card, OrderState } from '@/lib/api/types';
import { ackCheck, ackWhat, reopenCheck, reopenRelevant, requeueCheck, UNVERIFIED_REASON } from '@/lib/client/action-plan';
import { useKeyGate } from '@/lib/client/operator';
import { supersedeCheck, supersedeLabel, supersedeRelevant } from '@/lib/client/supersede';
import { useActions, type OrderActionKind } from './context';
import { GateLine } from './parts';
import { btn } from './ui';

const RULE_WORD: Record<OrderActionKind, string> = { requeue: 'Re-queue', ack: 'Acknowledge', reopen: 'Reopen', supersede: 'Supersede' };

const HELD: ReadonlySet<OrderState> = new Set<OrderState>(['claimed', 'stale', 'gave_up', 'changes_requested']);

export function OrderActions({ card, dependents }: { card: Card; dependents: readonly { readonly order_id: string; readonly state: OrderState }[] }) {
  const gate = useKeyGate(channelOfCard(card));
  const { openOrderAction } = useActions();
  const items: { kind: OrderActionKind; label: string; rule: string | null; tone: 'danger' | 'primary' }[] = [];
  if (card.holder && (HELD.has(card.state) || card.flags.includes('retired_holder'))) {
    items.push({ kind: 'requeue', label: `Re-queue ${card.order_id}…`, rule: requeueCheck(card), tone: 'danger' });
  }
  if (ackCheck(card) === null) items.push({ kind: 'ack', label: `Acknowledge ${ackWhat(card)}…`, rule: ackCheck(card), tone: 'primary' });
  if (reopenRelevant(card)) items.push({ kind: 'reopen', label: `Reopen ${card.order_id}…`, rule: reopenCheck(card, dependents), tone: 'primary' });
  if (supersedeRelevant(card)) items.push({ kind: 'supersede', label: supersedeLabel(card), rule: supersedeCheck(card), tone: 'primary' });
  if (items.length === 0) return null;
  // A card derived from records not verified yet may show a forged one: every action waits (the server refuses too).
  if (card.unverified) for (const it of items) it.rule = UNVERIFIED_REASON;

  return (
    <section aria-label="operator actions" className="mt-3 rounded-md border border-zinc-200 px-3 py-2 dark:border-zinc-800" data-order-actions="">
      <div className="flex flex-wrap items-center gap-2">
        <h2 className="mr-1 text-sm font-semibold">Operator actions</h2>
        {items.map((it) => {
          const blocked = gate.ok ? it.rule : gate.message;
          return (
            <button
              key={it.kind}
              type="button"
              className={it.tone === 'danger' ? btn.danger : btn.primary}
              disabled={blocked !== null}
              title={blocked ?? undefined}
              onClick={() => openOrderAction(it.kind, card)}
            >
              {it.label}
            </button>
          );
        })}
      </div>
      {!gate.ok ? (
        <GateLine className="mt-1.5 text-sm text-zinc-700 dark:text-zinc-300" />
      ) : (
        items
          .filter((it) => it.rule)
          .map((it) => (
            <p key={it.kind} className="mt-1.5 text-sm text-zinc-700 dark:text-zinc-300" data-rule={it.kind}>
              {RULE_WORD[it.kind]} is not allowed now: {it.rule}.
            </p>
          ))
      )}
    </section>
  );
}
