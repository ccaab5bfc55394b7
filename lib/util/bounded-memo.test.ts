import { describe, expect, it } from 'vitest';
import { BoundedMemo } from './bounded-memo';

describe('BoundedMemo', () => {
  it('makes an answer once per key, null and undefined answers too', () => {
    const memo = new BoundedMemo<string, string | null | undefined>(10);
    let made = 0;
    const make = (v: string | null | undefined) => () => (made++, v);
    expect(memo.get('a', make('A'))).toBe('A');
    expect(memo.get('a', make('other'))).toBe('A');
    expect(memo.get('n', make(null))).toBe(null);
    expect(memo.get('n', make('other'))).toBe(null);
    expect(memo.get('u', make(undefined))).toBe(undefined);
    expect(memo.get('u', make('other'))).toBe(undefined);
    expect(made).toBe(3);
  });

  it('forgets every answer when one more than max is made, and makes them again when asked', () => {
    const memo = new BoundedMemo<number, number>(3);
    let made = 0;
    const sq = (k: number) => memo.get(k, () => (made++, k * k));
    for (const k of [1, 2, 3]) sq(k);
    expect(made).toBe(3);
    expect(sq(4)).toBe(16); // the fourth: 1, 2, 3 forgotten
    expect(made).toBe(4);
    expect(sq(4)).toBe(16);
    expect(made).toBe(4);
    expect(sq(1)).toBe(1);
    expect(made).toBe(5);
  });
});
