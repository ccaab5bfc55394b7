'use client';
/**
 * Bulk actions over a lane's selection (Needs attention and Stale): "Select all in lane" (at
 * most 500, loading further pages when the lane has more than is shown), and a bar
 * "Re-queue 12 selected" / "Acknowledge 3 selected" that opens the bulk dialog with the cards
 * as they were when selected. In a hub a selection is of one channel (an act is signed for one):
 * "Select all" is offered when the lane's cards are of one channel (the channel picker narrows
 * it), and a selection spanning channels is said here and refused by the dialog.
 */
import { useState } from 'react';
import type { BoardFilters, Card, Lane, LanePage } from '@/lib/api/types';
import { ackCheck, BULK_MAX, requeueCheck } from '@/lib/client/action-plan';
import { fetchLanePage } from '@/lib/client/api';
import { useKeyGate } from '@/lib/client/operator';
import { channelsOf, cardKey } from '@/lib/ui/card-channel';
import { useActions } from './context';

/** Lanes whose cards carry actions and checkboxes. */
export const ACTION_LANES: ReadonlySet<Lane> = new Set<Lane>(['attention', 'stale']);

export function LaneSelectionBar({ page, loaded, filters }: { page: LanePage; loaded: readonly Card[]; filters: BoardFilters }) {
  const { selection, selectAll, clearSelection, openBulk } = useActions();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const lane = page.lane;
  const selected = [...(selection.get(lane)?.values() ?? [])];
  // A hub's lane counts its cards per channel.
  const counts = (page as { counts?: Readonly<Record<string, number>> }).counts ?? {};
  const laneChannels = Object.keys(counts).filter((c) => (counts[c] ?? 0) > 0).sort();
  const selectedChannels = channelsOf(selected);
  const gate = useKeyGate(selectedChannels[0] ?? (laneChannels.length === 1 ? laneChannels[0] : undefined));
  const oneChannel = laneChannels.length <= 1;
  // The bar stays while something is selected, even when the selected cards have left the lane.
  if (!gate.ok || !ACTION_LANES.has(lane) || (page.count === 0 && selected.length === 0)) return null;

  const requeueable = selected.filter((c) => requeueCheck(c) === null);
  const ackable = selected.filter((c) => ackCheck(c) === null);
  const limit = Math.min(page.count, BULK_MAX);

  const onSelectAll = async () => {
    setError(null);
    const cards: Card[] = [...loaded];
    const seen = new Set(cards.map(cardKey));
    // The lane has more than is loaded: fetch its further pages (as they are now) up to the limit.
    let cursor = cards.length < limit ? page.next_cursor : null;
    if (cursor) setLoading(true);
    try {
      while (cursor && cards.length < limit) {
        const next = await fetchLanePage(lane, cursor, filters);
        for (const c of next.cards) {
          if (!seen.has(cardKey(c))) {
            seen.add(cardKey(c));
            cards.push(c);
          }
        }
        cursor = next.next_cursor;
      }
      selectAll(lane, cards.slice(0, BULK_MAX));
    } catch (e) {
      setError(`could not load the whole lane: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      setLoading(false);
    }
  };

  const small =
    'rounded border border-zinc-300 bg-white px-1.5 py-0.5 text-xs font-medium pointer-coarse:min-h-11 pointer-coarse:px-3 text-zinc-700 hover:bg-zinc-100 disabled:cursor-not-allowed disabled:opacity-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200 dark:hover:bg-zinc-800';
  return (
    <div className="flex flex-col gap-1 px-3 pb-1.5 text-xs" data-selection-bar={lane}>
      <div className="flex flex-wrap items-center gap-1.5">
        {selected.length === 0 ? (
          oneChannel ? (
            <button type="button" className={small} onClick={() => void onSelectAll()} disabled={loading}>
              {loading ? 'Selecting…' : page.count > BULK_MAX ? `Select the first ${BULK_MAX}` : `Select all ${page.count} in lane`}
            </button>
          ) : (
            <span className="text-zinc-600 dark:text-zinc-400" data-select-all="one-channel">
              cards of {laneChannels.length} channels: pick one channel to select them all
            </span>
          )
        ) : (
          <>
            <span className="font-medium text-zinc-700 dark:text-zinc-300" aria-live="polite">
              {selected.length} selected
            </span>
            <button type="button" className={small} onClick={() => clearSelection(lane)}>
              Clear
            </button>
            {selected.length < limit && oneChannel ? (
              <button type="button" className={small} onClick={() => void onSelectAll()} disabled={loading}>
                {loading ? 'Selecting…' : `Select all ${limit}`}
              </button>
            ) : null}
          </>
        )}
      </div>
      {selectedChannels.length > 1 ? (
        <p className="text-amber-800 dark:text-amber-300" data-selection-channels={selectedChannels.join(' ')}>
          the selection spans {selectedChannels.length} channels ({selectedChannels.join(', ')}): a bulk act is of one channel
        </p>
      ) : null}
      {selected.length > 0 ? (
        <div className="flex flex-wrap items-center gap-1.5">
          {requeueable.length > 0 ? (
            <button
              type="button"
              className="rounded bg-red-700 px-2 py-1 text-xs font-semibold pointer-coarse:min-h-11 pointer-coarse:px-3 text-white hover:bg-red-600 dark:bg-red-600 dark:hover:bg-red-500"
              onClick={() => openBulk('requeue', lane, selected)}
            >
              Re-queue {requeueable.length} selected
            </button>
          ) : null}
          {ackable.length > 0 ? (
            <button
              type="button"
              className="rounded bg-zinc-900 px-2 py-1 text-xs font-semibold pointer-coarse:min-h-11 pointer-coarse:px-3 text-white hover:bg-zinc-700 dark:bg-zinc-100 dark:text-zinc-950 dark:hover:bg-white"
              onClick={() => openBulk('ack', lane, selected)}
            >
              Acknowledge {ackable.length} selected
            </button>
          ) : null}
          {requeueable.length === 0 && ackable.length === 0 ? (
            <span className="text-zinc-600 dark:text-zinc-400">none of them can be re-queued (holder fresh or not stale) or acknowledged (not a give-up or a late result)</span>
          ) : null}
        </div>
      ) : null}
      {error ? (
        <p role="alert" className="text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </div>
  );
}
