/**
 * Completion for the query bar (lib/query/query.ts): what the listbox offers for the word at the
 * caret, and the text after picking one. Pure: the caller passes the agent names (GET /api/agents)
 * and, where several channels are served, their names (a hub's board).
 *
 * A word with no colon is completed to a key (`ag` → `agent:`); `key:partial` to that key's
 * values: agent and holder names, the lanes, flags and states of the real unions, a few ages,
 * the channels (`channel:` is offered only when channels are given).
 * A leading `-` is kept. A word inside quotes is not completed.
 */
import { ATTENTION_FLAGS, ORDER_STATES } from '../ledger/card';
import { LANES } from '../ledger/derive';
import { FLAG_LABEL, LANE_TITLE, STATE_LABEL } from './labels';
import { CHANNEL_KEY_HINT, KEY_HINT, QUERY_KEYS, type QueryKey } from '../query/query';

/** One offer of the listbox. */
export interface Completion {
  /** What the option shows, e.g. `agent:` or `fang`. */
  readonly label: string;
  /** A few words beside it (what the key matches, a flag's words). */
  readonly detail: string;
  /** The text that replaces the word being completed. */
  readonly insert: string;
  /** A key (picking it keeps completing: its values come next) or a whole term. */
  readonly kind: 'key' | 'value';
}

/** The word being completed (`from`..`to` in the text) and what it can become. */
export interface CompletionList {
  readonly from: number;
  readonly to: number;
  readonly items: readonly Completion[];
}

/** Most offers shown at once. */
export const MAX_COMPLETIONS = 12;

const AGES = ['>10m', '>1h', '>1d', '<10m', '<1h'];

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/** Whether position `i` of `text` is inside a double-quoted string (quotes counted from the start, `\"` escaped). */
function insideQuotes(text: string, i: number): boolean {
  let open = false;
  for (let j = 0; j < i; j++) {
    const c = text[j];
    if (open && c === '\\') j++;
    else if (c === '"') open = !open;
  }
  return open;
}

/** The keys completion offers: QUERY_KEYS, and `channel` last where channels are served. */
type OfferedKey = QueryKey | 'channel';

function valuesOf(key: OfferedKey, agents: readonly string[], channels: readonly string[]): { value: string; detail: string }[] {
  switch (key) {
    case 'channel':
      return channels.map((c) => ({ value: c, detail: 'channel' }));
    case 'agent':
    case 'holder':
      return agents.map((a) => ({ value: a, detail: key === 'agent' ? 'agent' : 'holder' }));
    case 'lane':
      return LANES.map((l) => ({ value: l, detail: LANE_TITLE[l] }));
    case 'flag':
      return ATTENTION_FLAGS.map((f) => ({ value: f, detail: FLAG_LABEL[f] }));
    case 'state':
      return ORDER_STATES.map((s) => ({ value: s, detail: STATE_LABEL[s] }));
    case 'age':
      return AGES.map((a) => ({ value: a, detail: a.startsWith('>') ? `older than ${a.slice(1)}` : `newer than ${a.slice(1)}` }));
    case 'project':
      return [];
  }
}

/**
 * What to offer for the word around `caret`: null when there is nothing to offer (inside
 * quotes, an unknown key, no match). `explicit` (the user asked, e.g. ArrowDown on an empty
 * word) also offers every key for an empty word.
 */
export function completeAt(text: string, caret: number, agents: readonly string[], explicit = false, channels: readonly string[] = []): CompletionList | null {
  let from = caret;
  while (from > 0 && !isSpace(text[from - 1])) from--;
  let to = caret;
  while (to < text.length && !isSpace(text[to])) to++;
  if (insideQuotes(text, from) || text.slice(from, caret).includes('"')) return null;
  const word = text.slice(from, caret);
  const neg = word.startsWith('-') ? '-' : '';
  const body = word.slice(neg.length);
  const colon = body.indexOf(':');
  const keys: readonly OfferedKey[] = channels.length > 0 ? [...QUERY_KEYS, 'channel'] : QUERY_KEYS;
  const hint = (k: OfferedKey) => (k === 'channel' ? CHANNEL_KEY_HINT : KEY_HINT[k]);
  let items: Completion[];
  if (colon === -1) {
    if (body === '' && !explicit) return null;
    const p = body.toLowerCase();
    items = keys.filter((k) => k.startsWith(p)).map((k) => ({ label: `${k}:`, detail: hint(k), insert: `${neg}${k}:`, kind: 'key' as const }));
  } else {
    const key = body.slice(0, colon).toLowerCase() as OfferedKey;
    if (!keys.includes(key)) return null;
    const p = body.slice(colon + 1).toLowerCase();
    items = valuesOf(key, agents, channels)
      .filter((v) => v.value.toLowerCase().startsWith(p))
      .map((v) => ({ label: v.value, detail: v.detail, insert: `${neg}${key}:${v.value}`, kind: 'value' as const }));
  }
  if (items.length === 0) return null;
  return { from, to, items: items.slice(0, MAX_COMPLETIONS) };
}

/**
 * The text after picking `item` for the word `list.from`..`list.to`, and where the caret goes:
 * after a key, right behind its colon; after a value, behind one space (added unless one follows).
 */
export function applyCompletion(text: string, list: Pick<CompletionList, 'from' | 'to'>, item: Completion): { text: string; caret: number } {
  const before = text.slice(0, list.from);
  const after = text.slice(list.to);
  if (item.kind === 'key') return { text: before + item.insert + after, caret: before.length + item.insert.length };
  const sep = isSpace(after[0]) ? '' : ' ';
  return { text: before + item.insert + sep + after, caret: before.length + item.insert.length + 1 };
}
