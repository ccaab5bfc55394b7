'use client';
/** The actions context (components/actions/ActionsProvider.tsx provides it). */
import { createContext, useContext } from 'react';
import type { AgentResponse, Card, Lane } from '@/lib/api/types';

/** Which order action dialog: re-queue, reopen, acknowledge (OrderActionDialog), supersede (SupersedeDialog). */
export type OrderActionKind = 'requeue' | 'reopen' | 'ack' | 'supersede';

/** Selected cards per lane, each as it was when selected (what the operator saw), by cardKey (lib/ui/card-channel.ts). */
export type Selection = ReadonlyMap<Lane, ReadonlyMap<string, Card>>;

export interface ActionsApi {
  readonly openOrderAction: (kind: OrderActionKind, card: Card) => void;
  readonly openRetire: (agent: AgentResponse) => void;
  readonly openBulk: (kind: 'requeue' | 'ack', lane: Lane, cards: readonly Card[]) => void;
  readonly openKeyPanel: () => void;
  readonly selection: Selection;
  readonly toggleSelected: (lane: Lane, card: Card, on: boolean) => void;
  /** Replaces a lane's selection with these cards (at most BULK_MAX). */
  readonly selectAll: (lane: Lane, cards: readonly Card[]) => void;
  readonly clearSelection: (lane: Lane) => void;
  /** Orders just written (of a hub's `channel`): leave every selection. */
  readonly written: (orderIds: readonly string[], channel?: string) => void;
}

const noop = () => {};
export const ActionsContext = createContext<ActionsApi>({
  openOrderAction: noop,
  openRetire: noop,
  openBulk: noop,
  openKeyPanel: noop,
  selection: new Map(),
  toggleSelected: noop,
  selectAll: noop,
  clearSelection: noop,
  written: noop,
});

export const useActions = () => useContext(ActionsContext);

