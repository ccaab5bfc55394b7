import 'server-only';
/**
 * The demo fleet's clean-up at its bound: a finished order no one needs any more moved out of the
 * channel into `<dir>.archive/` (an operator's clean-up), so a demo left open keeps the folder the
 * same size.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ChannelState } from '../ledger/channel';

/**
 * The finished order to archive at the bound ({@link archiveCandidate}), moved into
 * `<dir>.archive/tasks/`; its id, or null when none may go.
 */
export function archiveOne(dir: string, state: ChannelState, story: (id: string) => boolean): string | null {
  const id = archiveCandidate(state, story, (d) => fs.statSync(path.join(dir, 'tasks', d)).mtimeMs);
  if (id === null) return null;
  const to = path.join(`${dir}.archive`, 'tasks');
  fs.mkdirSync(to, { recursive: true });
  fs.renameSync(path.join(dir, 'tasks', id), path.join(to, id));
  return id;
}

/** The ids of the orders archived beside the channel (`<dir>.archive/tasks/`). */
export function archivedIds(dir: string): string[] {
  try {
    return fs.readdirSync(path.join(`${dir}.archive`, 'tasks'));
  } catch {
    return [];
  }
}

/**
 * Which finished order may leave the channel: done or accepted with no flag, no story run on it,
 * no order depending on it; the one whose folder changed longest ago (`touchedMs`). Pure but for
 * `touchedMs`.
 */
export function archiveCandidate(state: ChannelState, story: (id: string) => boolean, touchedMs: (id: string) => number): string | null {
  const needed = new Set(state.orders.flatMap((c) => c.depends_on));
  let best: { id: string; t: number } | null = null;
  for (const c of state.orders) {
    if ((c.state !== 'done' && c.state !== 'accepted') || c.flags.length > 0 || story(c.order_id) || needed.has(c.order_id)) continue;
    const t = touchedMs(c.order_id);
    if (!best || t < best.t) best = { id: c.order_id, t };
  }
  return best?.id ?? null;
}
