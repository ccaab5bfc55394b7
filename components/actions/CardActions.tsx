'use client';
/**
 * Actions on a board card in the Needs attention and Stale lanes: a small menu (re-queue,
 * acknowledge give-up, supersede with a new order) and a checkbox for bulk actions. Items the operator may not take are
 * shown disabled with the reason in words.
 */
import { channelOfCard, cardKey } from '@/lib/ui/card-channel';
import { useEffect, useId, useLayoutEffect, useRef, useState, type CSSProperties, type KeyboardEvent } from 'react';
import { createPortal } from 'react-dom';
import type { Card, Lane } from '@/lib/api/types';
import { ackCheck, requeueCheck, requeueRelevant, UNVERIFIED_REASON } from '@/lib/client/action-plan';
import { useKeyGate } from '@/lib/client/operator';
import { supersedeCheck, supersedeLabel, supersedeRelevant } from '@/lib/client/supersede';
import { useActions, type OrderActionKind } from './context';

interface Item {
  readonly kind: OrderActionKind;
  readonly label: string;
  /** Why it is disabled, or null. */
  readonly blocked: string | null;
}

/** The order actions that belong on this card, each with why it is not allowed (null when it is). */
export function useCardItems(card: Card): Item[] {
  const gate = useKeyGate(channelOfCard(card));
  const items: Item[] = [];
  // A card derived from records not verified yet may show a forged one: no action until it is checked (the server refuses too).
  const first = (check: () => string | null) => (card.unverified ? UNVERIFIED_REASON : gate.ok ? check() : gate.message);
  if (requeueRelevant(card)) items.push({ kind: 'requeue', label: 'Re-queue…', blocked: first(() => requeueCheck(card)) });
  if (ackCheck(card) === null) items.push({ kind: 'ack', label: card.state === 'gave_up' ? 'Acknowledge give-up…' : 'Acknowledge late result…', blocked: first(() => ackCheck(card)) });
  if (supersedeRelevant(card)) items.push({ kind: 'supersede', label: supersedeLabel(card), blocked: first(() => supersedeCheck(card)) });
  return items;
}


/** The card's action menu (a menu button), or nothing when no action belongs on the card. */
export function CardActions({ card }: { card: Card }) {
  const items = useCardItems(card);
  const { openOrderAction } = useActions();
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);
  /** Where the button was when the menu was placed beside it (viewport px). */
  const anchor = useRef<{ left: number; top: number } | null>(null);

  // The menu is rendered at the end of <body> with fixed coordinates next to its button, so a
  // lane's scroll box (or a virtualized row) never clips it; it opens upwards near the bottom.
  const [place, setPlace] = useState<CSSProperties | null>(null);
  useLayoutEffect(() => {
    if (!open) {
      setPlace(null);
      return;
    }
    const b = buttonRef.current?.getBoundingClientRect();
    if (!b) return;
    anchor.current = { left: b.left, top: b.top };
    const width = 256;
    const left = Math.max(8, Math.min(b.right - width, window.innerWidth - width - 8));
    const below = window.innerHeight - b.bottom;
    setPlace(below >= 180 || below >= b.top ? { position: 'fixed', left, top: b.bottom + 4, width } : { position: 'fixed', left, bottom: window.innerHeight - b.top + 4, width });
  }, [open]);

  useEffect(() => {
    if (!open || !place) return;
    menuRef.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const onDown = (e: PointerEvent) => {
      const t = e.target as Node;
      if (!menuRef.current?.contains(t) && !buttonRef.current?.contains(t)) setOpen(false);
    };
    // Its place follows the button only while nothing scrolls: a scroll that moves the button
    // closes it (a scroll event that arrives after the menu was placed, from a scroll that came
    // before, does not).
    const onScroll = (e: Event) => {
      if (menuRef.current?.contains(e.target as Node)) return;
      const b = buttonRef.current?.getBoundingClientRect();
      const a = anchor.current;
      if (!b || !a || Math.abs(b.left - a.left) > 1 || Math.abs(b.top - a.top) > 1) setOpen(false);
    };
    const onResize = () => setOpen(false);
    document.addEventListener('pointerdown', onDown);
    window.addEventListener('scroll', onScroll, true);
    window.addEventListener('resize', onResize);
    return () => {
      document.removeEventListener('pointerdown', onDown);
      window.removeEventListener('scroll', onScroll, true);
      window.removeEventListener('resize', onResize);
    };
  }, [open, place]);

  if (items.length === 0) return null;

  const onMenuKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const all = [...(menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const i = all.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
      buttonRef.current?.focus();
    } else if (e.key === 'ArrowDown' || e.key === 'j') {
      e.preventDefault();
      e.stopPropagation();
      all[(i + 1) % all.length]?.focus();
    } else if (e.key === 'ArrowUp' || e.key === 'k') {
      e.preventDefault();
      e.stopPropagation();
      all[(i - 1 + all.length) % all.length]?.focus();
    } else if (e.key === 'Tab') {
      e.preventDefault();
      setOpen(false);
      buttonRef.current?.focus();
    }
  };

  return (
    <div className="relative mt-1.5 flex justify-end">
      <button
        ref={buttonRef}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={`Actions on ${card.order_id}`}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            setOpen(true);
          }
        }}
        className="inline-flex items-center gap-0.5 rounded border border-zinc-300 bg-white px-1.5 py-px text-xs font-medium pointer-coarse:min-h-11 pointer-coarse:px-4 pointer-coarse:text-sm text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200 dark:hover:bg-zinc-800"
      >
        Act <span aria-hidden="true">▾</span>
      </button>
      {open && place
        ? createPortal(
            <div
              ref={menuRef}
              id={menuId}
              role="menu"
              aria-label={`Actions on ${card.order_id}`}
              onKeyDown={onMenuKey}
              style={place}
              className="z-40 rounded-md border border-zinc-200 bg-white p-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
            >
              {items.map((it) => (
                <button
                  key={it.kind}
                  type="button"
                  role="menuitem"
                  aria-disabled={it.blocked !== null}
                  title={it.blocked ?? undefined}
                  onClick={() => {
                    if (it.blocked) return;
                    setOpen(false);
                    openOrderAction(it.kind, card);
                  }}
                  className={`block w-full rounded px-2 py-1.5 text-left text-sm focus:outline-none pointer-coarse:min-h-11 pointer-coarse:py-2.5 ${
                    it.blocked ? 'cursor-not-allowed text-zinc-500 dark:text-zinc-400' : 'text-zinc-900 hover:bg-zinc-100 focus:bg-zinc-100 dark:text-zinc-100 dark:hover:bg-zinc-800 dark:focus:bg-zinc-800'
                  }`}
                >
                  {it.label}
                  {it.blocked ? <span className="mt-0.5 block text-xs leading-snug text-zinc-600 dark:text-zinc-400">{it.blocked}</span> : null}
                </button>
              ))}
            </div>,
            document.body,
          )
        : null}
    </div>
  );
}

/** The card's checkbox for bulk actions (shown only when the operator may act). */
export function SelectCard({ card, lane }: { card: Card; lane: Lane }) {
  const gate = useKeyGate(channelOfCard(card));
  const { selection, toggleSelected } = useActions();
  if (!gate.ok) return null;
  const checked = selection.get(lane)?.has(cardKey(card)) ?? false;
  return (
    <input
      type="checkbox"
      checked={checked}
      onChange={(e) => toggleSelected(lane, card, e.target.checked)}
      aria-label={`select ${card.order_id}`}
      data-select={card.order_id}
      className="mt-0.5 size-4 shrink-0 accent-sky-600 pointer-coarse:size-6"
    />
  );
}
