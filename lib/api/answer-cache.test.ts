import { describe, expect, it } from 'vitest';
import { AnswerCache } from './answer-cache';

describe('AnswerCache', () => {
  it('computes once per key while the change seq and the age allow, again after either moves', () => {
    const c = new AnswerCache(1000);
    let computed = 0;
    const f = () => `answer ${++computed}`;
    const get = (key: string, seq: number, now: number) => c.get(key, seq, now, f).toString('utf8');
    expect(get('/a', 7, 0)).toBe('answer 1');
    expect(get('/a', 7, 999)).toBe('answer 1');
    expect(get('/b', 7, 999)).toBe('answer 2'); // another key
    expect(get('/a', 8, 999)).toBe('answer 3'); // the index changed
    expect(get('/a', 8, 2000)).toBe('answer 4'); // too old
  });

  it('keeps answers as UTF-8 and drops the least recently used beyond its byte budget', () => {
    const c = new AnswerCache(1000, 10);
    expect(c.get('/é', 1, 0, () => '"é"')).toEqual(Buffer.from([0x22, 0xc3, 0xa9, 0x22]));
    c.get('/x', 1, 0, () => 'xxxx'); // 4 + 4 bytes
    c.get('/é', 1, 0, () => 'never'); // a hit: now the most recent
    c.get('/y', 1, 0, () => 'yyyy'); // 12 bytes: /x goes, not /é
    expect(c.get('/é', 1, 0, () => 'again').toString()).toBe('"é"');
    expect(c.get('/x', 1, 0, () => 'x again').toString()).toBe('x again');
    expect(c.get('/big', 1, 0, () => 'z'.repeat(20)).toString()).toBe('z'.repeat(20)); // over budget alone: still answered
  });
});
