import { describe, expect, it } from 'vitest';
import { afterWrite, ECHO_WAIT_MS, onUrlQuery, type PendingWrite } from './url-echoes';

describe('the filter bar\'s pending URL writes', () => {
  it('two writes in quick succession: the first one\'s late echo is ours and leaves the second waiting', () => {
    let p: PendingWrite[] = afterWrite([], 'lane:stale state:stale', 'lane:stale', 0);
    p = afterWrite(p, 'lane:stale state:stale agent:fang', 'lane:stale', 50);
    const first = onUrlQuery(p, 'lane:stale state:stale', 300);
    expect(first.from).toBe('ours');
    expect(first.pending.map((w) => w.q)).toEqual(['lane:stale state:stale agent:fang']);
    const second = onUrlQuery(first.pending, 'lane:stale state:stale agent:fang', 400);
    expect(second).toEqual({ from: 'ours', pending: [] });
  });

  it('the router skipped the first navigation: the second one\'s echo settles both', () => {
    const p = afterWrite(afterWrite([], 'a', '', 0), 'b', '', 10);
    expect(onUrlQuery(p, 'b', 200)).toEqual({ from: 'ours', pending: [] });
  });

  it('a query nobody here wrote (back, a saved view) is followed, and nothing waits any more', () => {
    const p = afterWrite([], 'a', '', 0);
    expect(onUrlQuery(p, 'agent:wisp', 100)).toEqual({ from: 'elsewhere', pending: [] });
  });

  it('a write whose navigation never landed is forgotten: the same query from a saved view later is followed', () => {
    const p = afterWrite([], 'state:blocked', '', 0);
    // Within the wait it would still be taken for the echo.
    expect(onUrlQuery(p, 'state:blocked', ECHO_WAIT_MS - 1).from).toBe('ours');
    expect(onUrlQuery(p, 'state:blocked', ECHO_WAIT_MS).from).toBe('elsewhere');
    // Forgotten at the next write too.
    expect(afterWrite(p, 'lane:stale', '', ECHO_WAIT_MS + 5).map((w) => w.q)).toEqual(['lane:stale']);
  });

  it('a write of the query the URL already has expects no echo (the URL does not change), nor do the writes before it', () => {
    expect(afterWrite([], 'lane:stale', 'lane:stale', 0)).toEqual([]);
    // The URL has agent:fang; Clear, then fang picked again: the router merges both, the URL never moves.
    let p = afterWrite([], '', 'agent:fang', 0);
    p = afterWrite(p, 'agent:fang', 'agent:fang', 40);
    expect(p).toEqual([]);
    // A saved view of everything (q '') a moment later is followed, not taken for the Clear's echo.
    expect(onUrlQuery(p, '', 2_000).from).toBe('elsewhere');
  });

  it('keeps at most 16 writes, the newest', () => {
    let p: PendingWrite[] = [];
    for (let i = 0; i < 20; i++) p = afterWrite(p, `q${i}`, '', i);
    expect(p).toHaveLength(16);
    expect(p[0]?.q).toBe('q4');
    expect(p[15]?.q).toBe('q19');
  });
});
