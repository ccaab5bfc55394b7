import { describe, expect, it } from 'vitest';
import { deleteView, MAX_VIEWS, readViews, saveView, viewHref, viewNameProblem, writeViews } from './views';

describe('saved views', () => {
  it('what is stored reads back; nothing stored is no views', () => {
    const views = saveView(saveView([], { name: 'stale, not fang', q: 'lane:stale -agent:fang' }), { name: ' mine ', q: 'holder:ops' });
    expect(views).toEqual([
      { name: 'stale, not fang', q: 'lane:stale -agent:fang' },
      { name: 'mine', q: 'holder:ops' },
    ]);
    expect(readViews(writeViews(views))).toEqual(views);
    expect(readViews(null)).toEqual([]);
  });

  it('saving under a name already there (case aside) replaces it in place', () => {
    const views = [
      { name: 'a', q: 'x' },
      { name: 'B', q: 'y' },
    ];
    expect(saveView(views, { name: 'b', q: 'z' })).toEqual([
      { name: 'a', q: 'x' },
      { name: 'b', q: 'z' },
    ]);
  });

  it('deletes by name; keeps at most MAX_VIEWS, the oldest going first', () => {
    expect(deleteView([{ name: 'a', q: 'x' }, { name: 'b', q: 'y' }], 'A')).toEqual([{ name: 'b', q: 'y' }]);
    let views = readViews(null);
    for (let i = 0; i <= MAX_VIEWS; i++) views = saveView(views, { name: `v${i}`, q: '' });
    expect(views).toHaveLength(MAX_VIEWS);
    expect(views[0]?.name).toBe('v1');
  });

  it('drops what another version or a hand edit left: not JSON, not a list, bad entries, repeated names', () => {
    expect(readViews('{oops')).toEqual([]);
    expect(readViews('{"name":"a","q":""}')).toEqual([]);
    expect(readViews(JSON.stringify([{ name: 'ok', q: 'lane:done' }, { name: '', q: 'x' }, { name: 'n', q: 5 }, 'str', { name: 'OK', q: 'other' }, { name: 'x'.repeat(61), q: '' }]))).toEqual([
      { name: 'ok', q: 'lane:done' },
    ]);
  });

  it('names: not blank, at most 60 characters', () => {
    expect(viewNameProblem('  ')).toBe('give the view a name');
    expect(viewNameProblem('x'.repeat(61))).toBe('a name of at most 60 characters');
    expect(viewNameProblem('stale')).toBeNull();
  });

  it('a view is a link to the board with its query', () => {
    expect(viewHref('lane:stale -agent:"fa ng"')).toBe('/?q=lane%3Astale+-agent%3A%22fa+ng%22');
    expect(new URLSearchParams(viewHref('lane:stale -agent:fang').slice(2)).get('q')).toBe('lane:stale -agent:fang');
    expect(viewHref('')).toBe('/');
  });
});
