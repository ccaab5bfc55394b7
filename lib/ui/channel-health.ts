/**
 * The words of an index's health (GET /api/board's `index_health`: the header's banner) and of
 * each channel of a hub (its board's `channels` and `channel_health`: the board's summary and the
 * header). Pure; every word comes from the answer.
 */
import type { HealthCode, HubChannelSummary, IndexHealth } from '../api/types';
import { waitingWords } from './labels';

/** What the operator reads for each reason a board may not be current. */
export function healthSentence(code: HealthCode): { title: string; detail: string } {
  switch (code) {
    case 'index_write_failed':
      return { title: 'The index cannot be written', detail: 'showing the last good board; retrying every second, and catching up when it can write again' };
    case 'index_rebuilding':
      return { title: 'The index is being rebuilt', detail: 'its database was deleted or replaced; the board fills in again from the folder' };
    case 'folder_missing':
      return { title: 'The channel folder is missing', detail: 'this board is not the folder’s; actions are refused until it is back' };
    case 'folder_unreadable':
      return { title: 'A folder of the channel cannot be listed', detail: 'the board lacks what is in it (see Problems); check its permissions' };
  }
}

/** One channel of a hub as the board's summary says it. */
export interface ChannelLine {
  readonly name: string;
  /** ok: current; busy: indexing; warn: not current, or not readable now; gone: no longer served; off: not read by this query. */
  readonly tone: 'ok' | 'busy' | 'warn' | 'gone' | 'off';
  readonly words: string;
}

/**
 * Each channel of a hub's board, in the answer's order: gone with the serve's reason; served but
 * not readable now (its index waiting to start) with the server's reason; left out by the query's
 * `channel:` terms; not current by its writer's health; indexing; else up to date; with what in
 * it waits for a person (its Needs attention and Stale lanes, as the query reads them) and its
 * problems counted.
 */
export function channelLines(channels: readonly HubChannelSummary[], health: Readonly<Record<string, IndexHealth>> | undefined): ChannelLine[] {
  return channels.map((c): ChannelLine => {
    if (c.state === 'gone') return { name: c.name, tone: 'gone', words: `gone: ${c.why ?? 'no longer served'}` };
    if (!c.read) return c.why ? { name: c.name, tone: 'warn', words: `not readable now: ${c.why}` } : { name: c.name, tone: 'off', words: 'not shown by this query' };
    const h = health?.[c.name];
    if (h && h.state === 'degraded') return { name: c.name, tone: 'warn', words: `${healthSentence(h.code).title.toLowerCase()} (${h.reason})` };
    const counted = [...waitingWords(c.counts.attention ?? 0, c.counts.stale ?? 0), ...(c.problem_count > 0 ? [`${c.problem_count} ${c.problem_count === 1 ? 'problem' : 'problems'}`] : [])];
    const rest = counted.map((w) => ` · ${w}`).join('');
    if (c.progress && c.progress.phase !== 'ready') return { name: c.name, tone: 'busy', words: `indexing (${c.progress.phase})${rest}` };
    return { name: c.name, tone: 'ok', words: `up to date${rest}` };
  });
}

/** The first channel whose writer says its board is not current, for the header's banner (null: all current). */
export function firstDegraded(health: Readonly<Record<string, IndexHealth>> | undefined): string | null {
  for (const [name, h] of Object.entries(health ?? {})) if (h.state === 'degraded') return name;
  return null;
}
