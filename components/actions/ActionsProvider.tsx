'use client';
/**
 * Where operator actions live in the page: one host for the action dialogs (so a dialog stays
 * open while the card that opened it moves to another lane under a live update), the lane
 * selections for bulk actions, and the toasts. Cards, the order page and the agent page call
 * `useActions()`.
 */
import { useCallback, useMemo, useState, type ReactNode } from 'react';
import type { AgentResponse, Card, Lane } from '@/lib/api/types';
import { BULK_MAX } from '@/lib/client/action-plan';
import { cardKey } from '@/lib/ui/card-channel';
import { BulkDialog } from './BulkDialog';
import { KeyPanel } from './KeyPanel';
import { OrderActionDialog } from './OrderActionDialog';
import { RetireDialog } from './RetireDialog';
import { SupersedeDialog } from './SupersedeDialog';
import { ToastProvider } from './Toast';
import { ActionsContext, type OrderActionKind, type Selection } from './context';

export { useActions } from './context';

type Open =
  | { readonly dialog: 'order'; readonly kind: OrderActionKind; readonly card: Card; readonly key: number }
  | { readonly dialog: 'retire'; readonly agent: AgentResponse; readonly key: number }
  | { readonly dialog: 'bulk'; readonly kind: 'requeue' | 'ack'; readonly lane: Lane; readonly cards: readonly Card[]; readonly key: number };

export function ActionsProvider({ children }: { children: ReactNode }) {
  return (
    <ToastProvider>
      <ActionsHost>{children}</ActionsHost>
    </ToastProvider>
  );
}

function ActionsHost({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState<Open | null>(null);
  const [selection, setSelection] = useState<Selection>(new Map());
  // The key panel opens on top of an action dialog ("Sign in as operator" inside it) without closing it.
  const [keyPanel, setKeyPanel] = useState(0);
  const close = useCallback(() => setOpen(null), []);

  const openOrderAction = useCallback((kind: OrderActionKind, card: Card) => setOpen({ dialog: 'order', kind, card, key: Date.now() }), []);
  const openRetire = useCallback((agent: AgentResponse) => setOpen({ dialog: 'retire', agent, key: Date.now() }), []);
  const openBulk = useCallback((kind: 'requeue' | 'ack', lane: Lane, cards: readonly Card[]) => setOpen({ dialog: 'bulk', kind, lane, cards, key: Date.now() }), []);
  const openKeyPanel = useCallback(() => setKeyPanel(Date.now()), []);

  const toggleSelected = useCallback((lane: Lane, card: Card, on: boolean) => {
    setSelection((sel) => {
      const next = new Map(sel);
      const m = new Map(sel.get(lane) ?? []);
      if (on && m.size < BULK_MAX) m.set(cardKey(card), card);
      else if (!on) m.delete(cardKey(card));
      next.set(lane, m);
      return next;
    });
  }, []);
  const selectAll = useCallback((lane: Lane, cards: readonly Card[]) => {
    setSelection((sel) => new Map(sel).set(lane, new Map(cards.slice(0, BULK_MAX).map((c) => [cardKey(c), c]))));
  }, []);
  const clearSelection = useCallback((lane: Lane) => setSelection((sel) => new Map(sel).set(lane, new Map())), []);
  const written = useCallback((ids: readonly string[], channel?: string) => {
    if (ids.length === 0) return;
    const keys = new Set(ids.map((order_id) => cardKey({ order_id, channel })));
    setSelection((sel) => {
      const next = new Map<Lane, ReadonlyMap<string, Card>>();
      for (const [lane, m] of sel) next.set(lane, new Map([...m].filter(([k]) => !keys.has(k))));
      return next;
    });
  }, []);

  const api = useMemo(
    () => ({ openOrderAction, openRetire, openBulk, openKeyPanel, selection, toggleSelected, selectAll, clearSelection, written }),
    [openOrderAction, openRetire, openBulk, openKeyPanel, selection, toggleSelected, selectAll, clearSelection, written],
  );

  return (
    <ActionsContext.Provider value={api}>
      {children}
      {open?.dialog === 'order' && open.kind !== 'supersede' ? <OrderActionDialog key={open.key} kind={open.kind} card={open.card} onClose={close} /> : null}
      {open?.dialog === 'order' && open.kind === 'supersede' ? <SupersedeDialog key={open.key} card={open.card} onClose={close} /> : null}
      {open?.dialog === 'retire' ? <RetireDialog key={open.key} agent={open.agent} onClose={close} /> : null}
      {open?.dialog === 'bulk' ? <BulkDialog key={open.key} kind={open.kind} lane={open.lane} cards={open.cards} onClose={close} /> : null}
      {keyPanel ? <KeyPanel key={keyPanel} onClose={() => setKeyPanel(0)} /> : null}
    </ActionsContext.Provider>
  );
}
