/**
 * Saved views of the board: a name and a query (lib/query/query.ts), kept in the browser's
 * localStorage under {@link VIEWS_KEY} and shown as links (`/?q=…`) anyone can open. Pure: the
 * stored text comes in, the list goes out; what is stored is read with zod (another tab, an older
 * version or a hand edit may have written anything), and entries that do not fit are dropped.
 */
import { z } from 'zod';
import { MAX_QUERY_LENGTH } from '../query/query';

/** The localStorage key. */
export const VIEWS_KEY = 'claimboard.views.v1';
/** Most views kept; saving one more drops the oldest. */
export const MAX_VIEWS = 50;
/** Longest name, in characters. */
export const MAX_VIEW_NAME = 60;

export interface SavedView {
  readonly name: string;
  /** The query text, as saved (canonical form). */
  readonly q: string;
}

const viewSchema = z.object({ name: z.string().trim().min(1).max(MAX_VIEW_NAME), q: z.string().max(MAX_QUERY_LENGTH) });

/** The views stored as `raw` (null: none stored); malformed text or entries are dropped, one per name. */
export function readViews(raw: string | null): SavedView[] {
  if (!raw) return [];
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return [];
  }
  if (!Array.isArray(data)) return [];
  const out: SavedView[] = [];
  for (const item of data) {
    const v = viewSchema.safeParse(item);
    if (v.success && !out.some((o) => sameName(o.name, v.data.name))) out.push({ name: v.data.name, q: v.data.q });
  }
  return out.slice(-MAX_VIEWS);
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** Why `name` cannot name a view, or null when it can. */
export function viewNameProblem(name: string): string | null {
  const n = name.trim();
  if (n === '') return 'give the view a name';
  if (n.length > MAX_VIEW_NAME) return `a name of at most ${MAX_VIEW_NAME} characters`;
  return null;
}

/** The list with `view` saved: a view of the same name (case aside) is replaced in place, else it goes last. */
export function saveView(views: readonly SavedView[], view: SavedView): SavedView[] {
  const v = { name: view.name.trim(), q: view.q };
  const i = views.findIndex((o) => sameName(o.name, v.name));
  if (i >= 0) return views.map((o, j) => (j === i ? v : o));
  return [...views, v].slice(-MAX_VIEWS);
}

/** The list without the view named `name`. */
export function deleteView(views: readonly SavedView[], name: string): SavedView[] {
  return views.filter((o) => !sameName(o.name, name));
}

/** The stored text of a list. */
export function writeViews(views: readonly SavedView[]): string {
  return JSON.stringify(views.map((v) => ({ name: v.name, q: v.q })));
}

/** The board's path for a query: `/?q=…` (just `/` for an empty one). */
export function viewHref(q: string): string {
  return q === '' ? '/' : `/?${new URLSearchParams({ q }).toString()}`;
}
