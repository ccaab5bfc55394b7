import { describe, expect, it } from 'vitest';
import { filtersToParams, hasFilters, parseFilters } from './api';

const params = (qs: string) => new URLSearchParams(qs);

describe('board filters in the URL', () => {
  it('?q= as written (trimmed); nothing is no filter', () => {
    expect(parseFilters(params('q=lane%3Astale+-agent%3Afang'))).toEqual({ q: 'lane:stale -agent:fang' });
    expect(parseFilters(params('q=+rb+'))).toEqual({ q: 'rb' });
    expect(parseFilters(params(''))).toEqual({});
    expect(hasFilters(parseFilters(params('q=')))).toBe(false);
  });

  it('the old parameters read as terms after q, in canonical form', () => {
    expect(parseFilters(params('state=blocked'))).toEqual({ q: 'state:blocked' });
    expect(parseFilters(params('q=build&agent=Fang&flag=double_run'))).toEqual({ q: 'build agent:fang flag:double_run' });
  });

  it('a query that does not parse is kept, so the bar can say why', () => {
    expect(parseFilters(params('q=colour%3Ared'))).toEqual({ q: 'colour:red' });
    expect(parseFilters(params('state=running&q=x'))).toEqual({ q: 'x state:running' });
  });

  it('only q goes to the API', () => {
    expect(filtersToParams({ q: 'lane:stale' }).toString()).toBe('q=lane%3Astale');
    expect(filtersToParams({}).toString()).toBe('');
  });
});
