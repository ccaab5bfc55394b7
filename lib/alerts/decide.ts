/**
 * The alert decision: the items paging now against the sent set, and what to send.
 * Pure; times are this machine's clock, ms.
 *
 * - An item seen for the first time is remembered (`first_seen_ms`); once it has been there for
 *   the quiet period (`afterMs`, default 0) it is sent, with the other due items of its group
 *   in one message. An item that goes before its quiet period ends is forgotten: nothing sent.
 * - A sent item is never sent again while it stays (a restart included: the rows are stored).
 * - A sent item that goes is marked gone; when every item of its group has been gone for the
 *   quiet period, the group is resolved (one `resolved` message) and its rows are closed. An
 *   item back before that is simply not gone any more: a flapping item pages once.
 * - An item back after its group was resolved is a new episode: it is sent again.
 */
import type { AlertItem } from './items';

/** A row of the sent set that is not resolved. */
export interface OpenRow {
  readonly key: string;
  readonly grp: string;
  readonly kind: AlertItem['kind'];
  readonly order_id: string | null;
  readonly path: string | null;
  readonly reason: string;
  readonly first_seen_ms: number;
  /** When it was sent (decided, and handed to the targets), or null while in its quiet period. */
  readonly sent_ms: number | null;
  /** When it was first seen gone since it was sent, or null while it is there. */
  readonly gone_ms: number | null;
}

export interface Decision {
  /** Rows to insert or replace (new items, sent items, gone marks set or cleared). */
  readonly put: OpenRow[];
  /** Keys of rows to delete (items gone within their quiet period, never sent). */
  readonly drop: string[];
  /** Messages announcing items: per group, the items sent now (never empty). */
  readonly send: { readonly grp: string; readonly items: readonly OpenRow[] }[];
  /** Groups resolved now: their sent rows (never empty), to be closed with `resolved_ms`. */
  readonly resolve: { readonly grp: string; readonly rows: readonly OpenRow[] }[];
  /** When to decide again with nothing else changing (a quiet period ends), ms, or null. */
  readonly wakeMs: number | null;
}

/**
 * Decides at `nowMs` from the items paging now (`current`, by key) and the open rows of the
 * sent set. `afterMs`: the quiet period, ms (0: at once).
 */
export function decide(current: ReadonlyMap<string, AlertItem>, open: readonly OpenRow[], nowMs: number, afterMs: number): Decision {
  const put = new Map<string, OpenRow>();
  const drop: string[] = [];
  let wakeMs: number | null = null;
  const wake = (t: number) => {
    if (wakeMs === null || t < wakeMs) wakeMs = t;
  };
  const known = new Map(open.map((r) => [r.key, r]));
  // Every row as it stands after this decision, by group.
  const byGroup = new Map<string, OpenRow[]>();
  const keep = (r: OpenRow) => {
    const l = byGroup.get(r.grp);
    if (l) l.push(r);
    else byGroup.set(r.grp, [r]);
  };

  for (const item of current.values()) {
    const row = known.get(item.key);
    if (!row) {
      const fresh: OpenRow = { key: item.key, grp: item.grp, kind: item.kind, order_id: item.order_id, path: item.path, reason: item.reason, first_seen_ms: nowMs, sent_ms: null, gone_ms: null };
      put.set(fresh.key, fresh);
      keep(fresh);
    } else if (row.gone_ms !== null) {
      const back = { ...row, gone_ms: null };
      put.set(back.key, back);
      keep(back);
    } else keep(row);
  }
  for (const row of open) {
    if (current.has(row.key)) continue;
    if (row.sent_ms === null) {
      drop.push(row.key);
      continue;
    }
    if (row.gone_ms === null) {
      const gone = { ...row, gone_ms: nowMs };
      put.set(gone.key, gone);
      keep(gone);
    } else keep(row);
  }

  const send: Decision['send'] = [];
  const resolve: Decision['resolve'] = [];
  for (const [grp, rows] of byGroup) {
    const there = rows.filter((r) => r.gone_ms === null);
    if (there.length === 0) {
      // Every item of the group is gone (only sent rows are left: the others were dropped).
      const settled = Math.max(...rows.map((r) => (r.gone_ms ?? nowMs) + afterMs));
      if (settled <= nowMs) resolve.push({ grp, rows });
      else wake(settled);
      continue;
    }
    const due: OpenRow[] = [];
    for (const r of there) {
      if (r.sent_ms !== null) continue;
      const at = r.first_seen_ms + afterMs;
      if (at <= nowMs) due.push({ ...r, sent_ms: nowMs });
      else wake(at);
    }
    if (due.length === 0) continue;
    send.push({ grp, items: due });
    for (const d of due) put.set(d.key, d);
  }
  return { put: [...put.values()], drop, send, resolve, wakeMs };
}
