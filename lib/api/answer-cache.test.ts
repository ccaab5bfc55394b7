import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnswerCache } from './answer-cache';

describe('AnswerCache', () => {
  it('answers from the cache while the change seq and the age allow, not after either moves', () => {
    const c = new AnswerCache(1000);
    let computed = 0;
    const get = (key: string, seq: number, now: number) => (c.peek(key, seq, now) ?? c.put(key, seq, now, `answer ${++computed}`)).toString('utf8');
    expect(get('/a', 7, 0)).toBe('answer 1');
    expect(get('/a', 7, 999)).toBe('answer 1');
    expect(get('/b', 7, 999)).toBe('answer 2'); // another key
    expect(get('/a', 8, 999)).toBe('answer 3'); // the index changed
    expect(get('/a', 8, 2000)).toBe('answer 4'); // too old
    expect(c.peek('/a', 8, 2000)?.toString()).toBe('answer 4');
  });

  it('keeps answers as UTF-8 and drops the least recently used beyond its byte budget', () => {
    const c = new AnswerCache(1000, 10);
    expect(c.put('/é', 1, 0, '"é"')).toEqual(Buffer.from([0x22, 0xc3, 0xa9, 0x22]));
    c.put('/x', 1, 0, 'xxxx'); // 4 + 4 bytes
    expect(c.peek('/é', 1, 0)?.toString()).toBe('"é"'); // now the most recent
    c.put('/y', 1, 0, 'yyyy'); // 12 bytes: /x goes, not /é
    expect(c.peek('/x', 1, 0)).toBeUndefined();
    expect(c.peek('/é', 1, 0)?.toString()).toBe('"é"');
    c.put('/é', 2, 0, '"e"'); // replaces its older entry
    expect(c.peek('/é', 1, 0)).toBeUndefined();
    expect(c.put('/big', 1, 0, 'z'.repeat(20)).toString()).toBe('z'.repeat(20)); // over budget alone: still answered
    expect(c.peek('/y', 1, 0)).toBeUndefined();
  });

  describe('the sweep', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('lets each answer go one to two maxAgeMs after it was put, asked for or not, and then stops', () => {
      vi.useFakeTimers();
      const c = new AnswerCache(1000);
      c.put('/a', 1, 0, 'aaaa'); // before the first sweep
      vi.advanceTimersByTime(999);
      c.put('/b', 1, 0, 'bb'); // still before the first sweep (at 1000)
      vi.advanceTimersByTime(1); // the first sweep: both held, neither 1000 ms old yet
      expect(c.heldBytes).toBe(6);
      c.put('/c', 1, 0, 'c'); // after the first sweep
      vi.advanceTimersByTime(999);
      // Asked for (the index clock, given by the caller, still says 0 ms old): a hit does not keep it longer.
      expect(c.peek('/a', 1, 0)?.toString()).toBe('aaaa');
      vi.advanceTimersByTime(1); // the second sweep, at 2000: /a and /b go; /c, put at 1000, stays
      expect(c.peek('/a', 1, 0)).toBeUndefined();
      expect(c.peek('/b', 1, 0)).toBeUndefined();
      expect(c.heldBytes).toBe(1);
      vi.advanceTimersByTime(1000); // the third, at 3000: /c goes, nothing is held, no timer is left
      expect(c.heldBytes).toBe(0);
      expect(vi.getTimerCount()).toBe(0);
      c.put('/d', 1, 0, 'dd'); // a new answer starts the sweep again
      expect(vi.getTimerCount()).toBe(1);
      vi.advanceTimersByTime(2000);
      expect(c.heldBytes).toBe(0);
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});
