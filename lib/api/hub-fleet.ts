import 'server-only';
/**
 * A hub's answers beside the board, merged from each channel's own (channel-reads.ts): the
 * agents, the problems and the operator activity, every row with its channel. An agent name in
 * two channels is two identities: two rows. Channels come in name order.
 */
import { activity } from '../index/read/activity';
import { agents, problems } from '../index/read/queries';
import type { ActFilters } from '../ledger/acts';
import type { ChannelRead } from './channel-reads';
import type { Act, ActivityLedger, AgentSummary, ProblemsResponse } from './types';

/** A read of a hub's channel: its name is always given. */
export type HubRead = ChannelRead & { readonly name: string };

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Every channel's agents, each with its channel, by name (as one channel lists them) then channel. */
export function hubAgents(reads: readonly HubRead[]): { agents: (AgentSummary & { channel: string })[]; now_ms: number } {
  const all = reads.flatMap((r) => agents(r.db, r.nowMs).agents.map((a) => ({ ...a, channel: r.name })));
  all.sort((a, b) => byText(a.name, b.name) || byText(a.channel, b.channel));
  return { agents: all, now_ms: reads[0]?.nowMs ?? Date.now() };
}

/** Every channel's problem rows, each with its channel; the ledger files keyed `<channel>/<path>`, each with its channel. */
export function hubProblems(reads: readonly HubRead[]): ProblemsResponse {
  const rows: (ProblemsResponse['problems'][number] & { channel: string })[] = [];
  const ledger: Record<string, ProblemsResponse['ledger'][string] & { channel: string }> = {};
  for (const r of reads) {
    const p = problems(r.db);
    rows.push(...p.problems.map((row) => ({ ...row, channel: r.name })));
    for (const [file, l] of Object.entries(p.ledger)) ledger[`${r.name}/${file}`] = { ...l, channel: r.name };
  }
  return { problems: rows, ledger };
}

/** Where a hub's activity page ends: the last act's arrival, channel and sort key. */
export type HubActCursor = readonly [sortMs: number, channel: string, sortKey: string];

/** Opaque cursor of a hub's activity page: base64url of `{hub: [sort_ms, channel, sort_key]}`. */
export function encodeHubActCursor(c: HubActCursor): string {
  return Buffer.from(JSON.stringify({ hub: c })).toString('base64url');
}

/** A hub's activity cursor decoded; null when it is not one. */
export function decodeHubActCursor(text: string): HubActCursor | null {
  try {
    const v = (JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as { hub?: unknown } | null)?.hub;
    if (Array.isArray(v) && v.length === 3 && typeof v[0] === 'number' && typeof v[1] === 'string' && typeof v[2] === 'string') return [v[0], v[1], v[2]];
  } catch {
    /* not one */
  }
  return null;
}

/** Above every act's sort key (they are ASCII): a channel's keyset cursor before every act of one arrival. */
const ABOVE_EVERY_KEY = '\u007f';

/**
 * A channel's own activity cursor for a hub cursor (newest first: arrival descending, then
 * channel ascending, then sort key descending): after (arrival, key) in the cursor's channel;
 * from the arrival itself in a channel ordered after it (its acts of that arrival come later);
 * past the arrival in a channel ordered before it (they came already).
 */
function actCursorIn(name: string, after: HubActCursor | null): string | null {
  if (after === null) return null;
  const [sortMs, channel, key] = after;
  const k = name === channel ? key : name > channel ? ABOVE_EVERY_KEY : '';
  return Buffer.from(JSON.stringify([sortMs, k])).toString('base64url');
}

/**
 * A page of every channel's acts matching `filters`, newest first (arrival, channel, sort key):
 * each channel gives its first `limit` after the cursor, so the first `limit` of their union are
 * the page's. Totals summed; the names that acted and the ledger files, of every channel.
 */
export function hubActivity(reads: readonly HubRead[], filters: ActFilters, after: HubActCursor | null, limit: number) {
  const pages = reads.map((r) => ({ name: r.name, page: activity(r.db, filters, actCursorIn(r.name, after), r.nowMs, limit) }));
  const all = pages.flatMap((p) => p.page.acts.map((a): Act & { channel: string } => ({ ...a, channel: p.name })));
  all.sort((a, b) => b.sort_ms - a.sort_ms || byText(a.channel, b.channel) || byText(b.sort_key, a.sort_key));
  const taken = all.slice(0, limit);
  const last = taken[taken.length - 1];
  const more = all.length > limit || pages.some((p) => p.page.next_cursor !== null);
  return {
    acts: taken,
    total: pages.reduce((n, p) => n + p.page.total, 0),
    next_cursor: more && last ? encodeHubActCursor([last.sort_ms, last.channel, last.sort_key]) : null,
    operators: [...new Set(pages.flatMap((p) => p.page.operators))].sort(),
    ledgers: pages.flatMap((p) => p.page.ledgers.map((l): ActivityLedger & { channel: string } => ({ ...l, channel: p.name }))),
    now_ms: reads[0]?.nowMs ?? Date.now(),
  };
}
