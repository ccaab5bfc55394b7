import { describe, expect, it } from 'vitest';
import { channelLines, firstDegraded } from './channel-health';
import type { HubChannelSummary, IndexHealth, IndexProgress } from '../api/types';

const READY: IndexProgress = { phase: 'ready', files_seen: 4, files_read: 4, files_verified: 4, ready_at_ms: 1 };
const summary = (name: string, over: Partial<HubChannelSummary> = {}): HubChannelSummary => ({
  name,
  state: 'served',
  why: null,
  read: true,
  root: `/ch/${name}`,
  stale_after_ms: 300_000,
  progress: READY,
  problem_count: 0,
  counts: {},
  ...over,
});
const missing: IndexHealth = { state: 'degraded', code: 'folder_missing', reason: '/ch/beta: no such folder', since_ms: 5, retries: 2 };

describe("a hub's channels in words", () => {
  it('says each channel as the answer does: gone with its reason, not readable, left out by the query, not current, indexing, up to date; what waits for a person in it, counted', () => {
    const lines = channelLines(
      [
        summary('alpha', { problem_count: 2, counts: { attention: 1, stale: 3, running: 4, queue: 2 } }),
        summary('zeta', { counts: { attention: 0, stale: 0, done: 7 } }),
        summary('beta'),
        summary('gamma', { progress: { ...READY, phase: 'reading', ready_at_ms: null }, counts: { attention: 12 } }),
        summary('delta', { read: false, progress: null }),
        summary('eps', { read: false, why: 'the index of channel eps is not available yet: SQLITE_CANTOPEN', progress: null }),
        summary('v09', { state: 'gone', why: 'folder gone', read: false, progress: null }),
      ],
      { alpha: { state: 'ok' }, beta: missing, gamma: { state: 'ok' } },
    );
    expect(lines).toEqual([
      { name: 'alpha', tone: 'ok', words: 'up to date · 1 needs attention · 3 stale · 2 problems' },
      { name: 'zeta', tone: 'ok', words: 'up to date' },
      { name: 'beta', tone: 'warn', words: 'the channel folder is missing (/ch/beta: no such folder)' },
      { name: 'gamma', tone: 'busy', words: 'indexing (reading) · 12 need attention' },
      { name: 'delta', tone: 'off', words: 'not shown by this query' },
      { name: 'eps', tone: 'warn', words: 'not readable now: the index of channel eps is not available yet: SQLITE_CANTOPEN' },
      { name: 'v09', tone: 'gone', words: 'gone: folder gone' },
    ]);
  });

  it("names the first channel whose writer says its board is not current, none when all are", () => {
    expect(firstDegraded({ alpha: { state: 'ok' }, beta: missing })).toBe('beta');
    expect(firstDegraded({ alpha: { state: 'ok' } })).toBeNull();
    expect(firstDegraded(undefined)).toBeNull();
  });
});
