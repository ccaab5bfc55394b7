/**
 * The board's query language: what the query bar, the URL's `?q=` and
 * GET /api/board's `q` say. Pure: no React, no fetch; the server validates with the same parser.
 *
 * Terms are separated by spaces. A term is `key:value` or free text; a `-` right before a term
 * negates it. Keys: `agent` (holds it, or its double run or late result involves it), `holder`,
 * `lane`, `flag`, `state`, `project`, `age` (`age:>1h` older than an hour, `age:<10m` newer; units
 * s, m, h, d), and `channel` (a hub's channel, by name: which channels' cards are read at all). A value or free text with spaces or quotes goes in double quotes (`\"` and `\\`
 * inside). Repeated keys of the same kind OR together (`agent:fang agent:wisp`: either), different
 * keys AND; a negated term always excludes (`-agent:ghost`); `age` terms AND (a range:
 * `age:>1h age:<1d`); free words must each appear in the order's id, holder, project, state,
 * flags or reason. Anything else is a reason in words with the character it starts at.
 *
 * The age of a card is measured on this machine's clock, from the arrival the card's sentence
 * counts from (lib/index/read/board-where.ts computes it in SQL): for a stale card the arrival its
 * staleness runs from (`since_ms` − stale_after: "nothing from fang for 3 h"), else its holder's
 * last heartbeat arrival ("last heartbeat arrived 2 min ago"), else the newest arrival of a file
 * in the order's folder.
 */
import { LANES, type AttentionFlag, type Lane, type OrderState } from '../ledger/derive';
import { canonicalName, CHANNEL_NAME_RULE, isChannelName, isSafeComponent } from '../ledger/names';
import { ATTENTION_FLAGS, ORDER_STATES } from '../ledger/card';

/** The qualifier keys, in the order completion offers them. */
export type QueryKey = 'agent' | 'lane' | 'flag' | 'state' | 'age' | 'project' | 'holder';
export const QUERY_KEYS: readonly QueryKey[] = ['agent', 'lane', 'flag', 'state', 'age', 'project', 'holder'];

/**
 * The keys a query may use: QUERY_KEYS, and `channel`, which selects the channels a hub reads
 * rather than cards (completion offers it only where several channels are served; the
 * unknown-key reason does not list it, as a board of one channel has no use for it).
 */
type TermKey = QueryKey | 'channel';

/** What each key matches, one line (completion shows it). */
export const KEY_HINT: Record<QueryKey, string> = {
  agent: 'holds it, or its double run or late result involves it',
  lane: 'the lane the card is in',
  flag: 'an attention flag it carries',
  state: 'its derived state',
  age: 'since its last arrival here: >1h older, <10m newer',
  project: 'its project id',
  holder: 'who holds it now',
};

/** What `channel:` matches, one line (completion shows it in a hub). */
export const CHANNEL_KEY_HINT = 'the channel it is in (a hub serves several)';

export type AgeUnit = 's' | 'm' | 'h' | 'd';
/** Milliseconds per age unit: seconds, minutes, hours, days. */
export const AGE_UNIT_MS: Record<AgeUnit, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** One term of a query. `neg`: the term was written with a leading `-`. */
export type QueryTerm =
  | { readonly kind: 'agent' | 'holder' | 'project' | 'channel'; readonly neg: boolean; readonly value: string }
  | { readonly kind: 'lane'; readonly neg: boolean; readonly value: Lane }
  | { readonly kind: 'flag'; readonly neg: boolean; readonly value: AttentionFlag }
  | { readonly kind: 'state'; readonly neg: boolean; readonly value: OrderState }
  | { readonly kind: 'age'; readonly neg: boolean; readonly op: '>' | '<'; readonly amount: number; readonly unit: AgeUnit }
  | { readonly kind: 'text'; readonly neg: boolean; readonly value: string };

/** A parse: the terms, or why not and at which character (0-based offset into the text). */
export type ParsedQuery = { readonly ok: true; readonly terms: readonly QueryTerm[] } | { readonly ok: false; readonly reason: string; readonly at: number };

/** Longest query text accepted (characters). */
export const MAX_QUERY_LENGTH = 500;
/** Most terms in one query. */
export const MAX_TERMS = 40;

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isKey = (k: string): k is TermKey => k === 'channel' || (QUERY_KEYS as readonly string[]).includes(k);

class QueryError extends Error {
  constructor(
    readonly reason: string,
    readonly at: number,
  ) {
    super(reason);
  }
}

/** Reads a double-quoted string starting at `i` (the opening quote); returns its text and the index after the closing quote. */
function readQuoted(text: string, i: number): { value: string; end: number } {
  let out = '';
  let j = i + 1;
  while (j < text.length) {
    const c = text[j] as string;
    if (c === '"') return { value: out, end: j + 1 };
    if (c === '\\' && (text[j + 1] === '"' || text[j + 1] === '\\')) {
      out += text[j + 1];
      j += 2;
      continue;
    }
    out += c;
    j++;
  }
  throw new QueryError('a quote is not closed: end the value with "', i);
}

/** Reads a bare word from `i` to the next space; a quote inside it is an error. */
function readBare(text: string, i: number): { value: string; end: number } {
  let j = i;
  while (j < text.length && !isSpace(text[j])) {
    if (text[j] === '"') throw new QueryError('a quote inside a word: put the whole value in quotes, e.g. "two words"', j);
    j++;
  }
  return { value: text.slice(i, j), end: j };
}

const list = (xs: readonly string[]) => xs.join(', ');

/** The term `key:value` (value as read, unquoted), or the reason it is not one. */
function termOf(key: TermKey, neg: boolean, value: string, at: number): QueryTerm {
  const fail = (reason: string): never => {
    throw new QueryError(reason, at);
  };
  if (value === '') fail(`${key}: needs a value, e.g. ${EXAMPLE[key]}`);
  switch (key) {
    case 'agent':
    case 'holder': {
      const name = canonicalName(value);
      if (!isSafeComponent(name)) fail(`${key}: "${value}" is not an agent name (letters, digits, ".", "-" and "_" only)`);
      return { kind: key, neg, value: name };
    }
    case 'project':
      return { kind: 'project', neg, value: value.toLowerCase() };
    case 'channel': {
      const name = canonicalName(value);
      if (!isChannelName(name)) fail(`channel: "${value}" is not a channel name (${CHANNEL_NAME_RULE})`);
      return { kind: 'channel', neg, value: name };
    }
    case 'lane': {
      const v = value.toLowerCase();
      if (!(LANES as readonly string[]).includes(v)) fail(`lane: "${value}" is not a lane; the lanes are ${list(LANES)}`);
      return { kind: 'lane', neg, value: v as Lane };
    }
    case 'flag': {
      const v = value.toLowerCase();
      if (!(ATTENTION_FLAGS as readonly string[]).includes(v)) fail(`flag: "${value}" is not a flag; the flags are ${list(ATTENTION_FLAGS)}`);
      return { kind: 'flag', neg, value: v as AttentionFlag };
    }
    case 'state': {
      const v = value.toLowerCase();
      if (!(ORDER_STATES as readonly string[]).includes(v)) fail(`state: "${value}" is not a state; the states are ${list(ORDER_STATES)}`);
      return { kind: 'state', neg, value: v as OrderState };
    }
    case 'age': {
      const op = value[0];
      if (op !== '>' && op !== '<') {
        return /^\d+(?:\.\d+)?[smhd]$/i.test(value)
          ? fail(`age: say older or newer than how long: age:>${value} (older) or age:<${value} (newer)`)
          : fail('age: write > (older) or < (newer) and a duration, e.g. age:>1h or age:<10m');
      }
      if (value[1] === '=') fail('age: use > or < alone (>= and <= are not part of the grammar)');
      const m = /^(\d+(?:\.\d+)?)([A-Za-z]*)$/.exec(value.slice(1));
      if (!m) return fail(`age: "${value.slice(1)}" is not a duration; write a number and a unit, e.g. age:${op}90m`);
      const unit = (m[2] ?? '').toLowerCase();
      if (unit === '') fail(`age: "${m[1]}" has no unit; add s, m, h or d (seconds, minutes, hours, days), e.g. age:${op}${m[1]}h`);
      if (unit !== 's' && unit !== 'm' && unit !== 'h' && unit !== 'd') {
        fail(`age: "${m[2]}" is not a unit; the units are s, m, h and d (seconds, minutes, hours, days)`);
      }
      return { kind: 'age', neg, op, amount: Number(m[1]), unit: unit as AgeUnit };
    }
  }
}

const EXAMPLE: Record<TermKey, string> = {
  agent: 'agent:fang',
  channel: 'channel:atlas',
  holder: 'holder:fang',
  project: 'project:atlas',
  lane: 'lane:stale',
  flag: 'flag:double_run',
  state: 'state:claimed',
  age: 'age:>1h',
};

/**
 * Parses a query (grammar: the module comment). Never throws: a text that is not a query gives
 * `{ ok: false, reason, at }` with the reason in words and the 0-based offset it starts at.
 */
export function parseQuery(text: string): ParsedQuery {
  try {
    if (text.length > MAX_QUERY_LENGTH) throw new QueryError(`the query is longer than ${MAX_QUERY_LENGTH} characters`, MAX_QUERY_LENGTH);
    const terms: QueryTerm[] = [];
    let i = 0;
    for (;;) {
      while (isSpace(text[i])) i++;
      if (i >= text.length) break;
      const start = i;
      const neg = text[i] === '-';
      if (neg) {
        i++;
        if (i >= text.length || isSpace(text[i])) throw new QueryError('a "-" must come right before the term it negates, e.g. -agent:ghost', start);
      }
      let term: QueryTerm;
      if (text[i] === '"') {
        const q = readQuoted(text, i);
        if (q.value === '') throw new QueryError('empty quotes: nothing to search for', i);
        term = { kind: 'text', neg, value: q.value };
        i = q.end;
      } else {
        const key = /^([A-Za-z]+):/.exec(text.slice(i));
        if (key) {
          const name = (key[1] as string).toLowerCase();
          if (!isKey(name)) {
            throw new QueryError(`unknown key "${key[1]}:"; the keys are ${list(QUERY_KEYS)} (to search for the text, put it in quotes: "${key[1]}:…")`, i);
          }
          const at = i + key[0].length;
          const v = text[at] === '"' ? readQuoted(text, at) : readBare(text, at);
          term = termOf(name, neg, v.value, at);
          i = v.end;
        } else {
          const w = readBare(text, i);
          term = { kind: 'text', neg, value: w.value };
          i = w.end;
        }
      }
      if (i < text.length && !isSpace(text[i])) throw new QueryError('put a space after the closing quote', i);
      terms.push(term);
      if (terms.length > MAX_TERMS) throw new QueryError(`more than ${MAX_TERMS} terms`, start);
    }
    return { ok: true, terms };
  } catch (e) {
    if (e instanceof QueryError) return { ok: false, reason: e.reason, at: e.at };
    throw e;
  }
}

/** `s` in double quotes, with `"` and `\` escaped. */
function quote(s: string): string {
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** A value as printed: bare when it reads back as itself, quoted otherwise. */
function printValue(v: string): string {
  return v === '' || /[\s"]/.test(v) ? quote(v) : v;
}

/** Free text as printed: quoted when bare it would read as a key, a negation or several words. */
function printText(v: string): string {
  return v === '' || /[\s"]/.test(v) || v.startsWith('-') || /^[A-Za-z]+:/.test(v) ? quote(v) : v;
}

/** One term in canonical form (lowercase key, canonical value, quotes only where needed). */
export function printTerm(t: QueryTerm): string {
  const sign = t.neg ? '-' : '';
  switch (t.kind) {
    case 'text':
      return sign + printText(t.value);
    case 'age':
      return `${sign}age:${t.op}${t.amount}${t.unit}`;
    case 'agent':
    case 'holder':
    case 'project':
    case 'channel':
    case 'lane':
    case 'flag':
    case 'state':
      return `${sign}${t.kind}:${printValue(t.value)}`;
  }
}

/** The canonical form of a query: its terms in order, each printed by {@link printTerm}, one space apart. */
export function printQuery(terms: readonly QueryTerm[]): string {
  return terms.map(printTerm).join(' ');
}

/** An age term's duration in milliseconds. */
export function ageMs(t: Extract<QueryTerm, { kind: 'age' }>): number {
  return t.amount * AGE_UNIT_MS[t.unit];
}

/** The values of one kind: those wanted (any of them) and those excluded (each). */
export interface Wanted<T> {
  readonly in: readonly T[];
  readonly out: readonly T[];
}

/** A bound on the age, ms: `strict` for > or <, not for the ≥ or ≤ a negation gives. */
export interface AgeBound {
  readonly ms: number;
  readonly strict: boolean;
}

/** A query grouped by kind, ready to become SQL: positives OR within a kind, negatives each exclude, ages AND into one range. */
export interface QueryGroups {
  readonly agent: Wanted<string>;
  readonly holder: Wanted<string>;
  readonly project: Wanted<string>;
  /** A hub's channels: read those of `in` (all when empty), none of `out`. */
  readonly channel: Wanted<string>;
  readonly lane: Wanted<Lane>;
  readonly flag: Wanted<AttentionFlag>;
  readonly state: Wanted<OrderState>;
  /** Free words, lowercased: each of `in` must appear, none of `out`. */
  readonly text: Wanted<string>;
  /** The age must exceed `min` (when set) and stay under `max` (when set). */
  readonly age: { readonly min: AgeBound | null; readonly max: AgeBound | null };
}

/** The tighter of two lower bounds (`lower`) or upper bounds. */
function tighter(a: AgeBound | null, b: AgeBound, lower: boolean): AgeBound {
  if (!a || (lower ? b.ms > a.ms : b.ms < a.ms)) return b;
  if (a.ms === b.ms) return { ms: a.ms, strict: a.strict || b.strict };
  return a;
}

/**
 * Groups terms by kind (duplicates dropped). `age:>X` is age > X, `-age:>X` age ≤ X, `age:<X`
 * age < X, `-age:<X` age ≥ X; several combine into the tightest range.
 */
export function groupQuery(terms: readonly QueryTerm[]): QueryGroups {
  const sets = {
    agent: [new Set<string>(), new Set<string>()],
    holder: [new Set<string>(), new Set<string>()],
    project: [new Set<string>(), new Set<string>()],
    channel: [new Set<string>(), new Set<string>()],
    lane: [new Set<Lane>(), new Set<Lane>()],
    flag: [new Set<AttentionFlag>(), new Set<AttentionFlag>()],
    state: [new Set<OrderState>(), new Set<OrderState>()],
    text: [new Set<string>(), new Set<string>()],
  } as const;
  let min: AgeBound | null = null;
  let max: AgeBound | null = null;
  for (const t of terms) {
    const side = t.neg ? 1 : 0;
    switch (t.kind) {
      case 'age': {
        const ms = ageMs(t);
        const older = (t.op === '>') !== t.neg;
        if (older) min = tighter(min, { ms, strict: !t.neg }, true);
        else max = tighter(max, { ms, strict: !t.neg }, false);
        break;
      }
      case 'text':
        sets.text[side].add(t.value.toLowerCase());
        break;
      case 'lane':
        sets.lane[side].add(t.value);
        break;
      case 'flag':
        sets.flag[side].add(t.value);
        break;
      case 'state':
        sets.state[side].add(t.value);
        break;
      case 'agent':
      case 'holder':
      case 'project':
      case 'channel':
        sets[t.kind][side].add(t.value);
        break;
    }
  }
  const w = <T,>(s: readonly [Set<T>, Set<T>]): Wanted<T> => ({ in: [...s[0]], out: [...s[1]] });
  return {
    agent: w(sets.agent),
    holder: w(sets.holder),
    project: w(sets.project),
    channel: w(sets.channel),
    lane: w(sets.lane),
    flag: w(sets.flag),
    state: w(sets.state),
    text: w(sets.text),
    age: { min, max },
  };
}

/** Whether a lane can hold any card the query matches (a `lane:` term names another, or `-lane:` this one). */
export function laneAllowed(g: QueryGroups, lane: Lane): boolean {
  return (g.lane.in.length === 0 || g.lane.in.includes(lane)) && !g.lane.out.includes(lane);
}

/** Whether the query reads the channel named `name` (canonical): no `channel:` term names another, and no `-channel:` this one. */
export function channelAllowed(g: QueryGroups, name: string): boolean {
  return (g.channel.in.length === 0 || g.channel.in.includes(name)) && !g.channel.out.includes(name);
}

/**
 * The query the old board parameters say (`?agent=&state=&flag=` beside `?q=`): the terms of `q`
 * followed by one term per alias given. An alias that is not a valid value is a failure as a
 * `key:value` term would be.
 */
export function queryOfParams(p: { readonly q?: string; readonly agent?: string; readonly state?: string; readonly flag?: string }): ParsedQuery {
  const parsed = parseQuery(p.q ?? '');
  if (!parsed.ok) return parsed;
  const terms = [...parsed.terms];
  for (const key of ['agent', 'state', 'flag'] as const) {
    const v = p[key];
    if (v === undefined || v === '') continue;
    try {
      terms.push(termOf(key, false, v, 0));
    } catch (e) {
      if (e instanceof QueryError) return { ok: false, reason: `${key} parameter: ${e.reason}`, at: 0 };
      throw e;
    }
  }
  return { ok: true, terms };
}

/**
 * The query of the fleet history (GET /api/holds, /history): the terms of `q`, then `agent` and
 * `project` as terms of their own. `agent` is the hold's agent, `holder` the order's holder now,
 * `lane`, `state` and `flag` the order's card now, `project` its project, free words the hold's
 * order, agent, project, ending, who ended it and its reason. `age` is refused: the window says when.
 */
export function historyQueryOf(p: { readonly q?: string; readonly agent?: string; readonly project?: string }): ParsedQuery {
  const parsed = parseQuery(p.q ?? '');
  if (!parsed.ok) return parsed;
  const terms = [...parsed.terms];
  if (terms.some((t) => t.kind === 'age')) {
    const m = /(?:^|\s)(-?age:)/i.exec(p.q ?? '');
    return { ok: false, reason: 'age: the history has a window instead (range, from, to)', at: m ? m.index + m[0].length - (m[1] ?? '').length : 0 };
  }
  if (terms.some((t) => t.kind === 'channel')) {
    const m = /(?:^|\s)(-?channel:)/i.exec(p.q ?? '');
    return { ok: false, reason: "channel: the history is of one channel (a hub's history by channel is not there yet)", at: m ? m.index + m[0].length - (m[1] ?? '').length : 0 };
  }
  for (const key of ['agent', 'project'] as const) {
    const v = p[key];
    if (v === undefined || v === '') continue;
    try {
      terms.push(termOf(key, false, v, 0));
    } catch (e) {
      if (e instanceof QueryError) return { ok: false, reason: `${key} parameter: ${e.reason}`, at: 0 };
      throw e;
    }
  }
  return { ok: true, terms };
}

/** The kinds a dropdown shortcut edits. */
export type ShortcutKind = 'agent' | 'state' | 'flag' | 'lane' | 'channel';

/**
 * What a dropdown shows for the query: the value of its one positive term of `kind`, '' when
 * there is none, null when there are several (the dropdown then says so).
 */
export function shortcutValue(terms: readonly QueryTerm[], kind: ShortcutKind): string | null {
  const vals = [...new Set(terms.filter((t) => t.kind === kind && !t.neg).map((t) => (t as { value: string }).value))];
  return vals.length === 0 ? '' : vals.length === 1 ? (vals[0] as string) : null;
}

/**
 * The query with its positive `kind` terms replaced by `value` (none when '') and any negation
 * of `value` dropped; the new term takes the place of the first one it replaces, else goes last.
 * An invalid value for the kind throws (the dropdowns offer only valid ones).
 */
export function withShortcut(terms: readonly QueryTerm[], kind: ShortcutKind, value: string): QueryTerm[] {
  const next = value === '' ? null : termOf(kind, false, value, 0);
  const out: QueryTerm[] = [];
  let placed = false;
  for (const t of terms) {
    const replaced = t.kind === kind && (!t.neg || (next !== null && (t as { value: string }).value === (next as { value: string }).value));
    if (!replaced) out.push(t);
    else if (!placed && next && !t.neg) {
      out.push(next);
      placed = true;
    }
  }
  if (next && !placed) out.push(next);
  return out;
}
