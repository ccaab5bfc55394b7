import { describe, expect, it } from 'vitest';
import { AnswerCache } from './answer-cache';

describe('AnswerCache', () => {
  it('computes once per key while the change seq and the age allow, again after either moves', () => {
    const c = new AnswerCache(1000);
    let computed = 0;
    const f = () => `answer ${++computed}`;
    expect(c.get('/a', 7, 0, f)).toBe('answer 1');
    expect(c.get('/a', 7, 999, f)).toBe('answer 1');
    expect(c.get('/b', 7, 999, f)).toBe('answer 2'); // another key
    expect(c.get('/a', 8, 999, f)).toBe('answer 3'); // the index changed
    expect(c.get('/a', 8, 2000, f)).toBe('answer 4'); // too old
  });
});
