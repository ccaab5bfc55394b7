/** A retire's release (retire-release.ts): the reason `retired`, written by another. */
import { describe, expect, it } from 'vitest';
import { isRetireRelease } from './retire-release';

describe('isRetireRelease', () => {
  it('is another\'s release with the reason `retired`, blanks around it ignored', () => {
    expect(isRetireRelease({ reason: 'retired', releaser: 'ops', released: 'fang' })).toBe(true);
    expect(isRetireRelease({ reason: ' retired\n', releaser: 'ops', released: 'fang' })).toBe(true);
  });
  it('is not an agent\'s release of itself, another reason, or the word inside a longer reason', () => {
    expect(isRetireRelease({ reason: 'retired', releaser: 'fang', released: 'fang' })).toBe(false);
    expect(isRetireRelease({ reason: 'requeued: stale', releaser: 'ops', released: 'fang' })).toBe(false);
    expect(isRetireRelease({ reason: 'retired early', releaser: 'ops', released: 'fang' })).toBe(false);
    expect(isRetireRelease({ reason: 'Retired', releaser: 'ops', released: 'fang' })).toBe(false);
  });
});
