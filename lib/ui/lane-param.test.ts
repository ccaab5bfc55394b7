import { describe, expect, it } from 'vitest';
import { laneFromParams, withLane } from './lane-param';

describe('laneFromParams', () => {
  it('reads a lane, and falls back to Needs attention', () => {
    expect(laneFromParams(new URLSearchParams('lane=stale'))).toBe('stale');
    expect(laneFromParams(new URLSearchParams('q=x&lane=done'))).toBe('done');
    expect(laneFromParams(new URLSearchParams(''))).toBe('attention');
    expect(laneFromParams(new URLSearchParams('lane=Stale'))).toBe('attention');
    expect(laneFromParams(new URLSearchParams('lane=toString'))).toBe('attention');
  });
});

describe('withLane', () => {
  it('sets the lane and keeps the filters', () => {
    expect(withLane('agent=fang&q=build', 'stale')).toBe('agent=fang&q=build&lane=stale');
    expect(withLane('?lane=queue&q=a', 'done')).toBe('lane=done&q=a');
  });
  it('drops the parameter for the default lane', () => {
    expect(withLane('lane=queue&q=a', 'attention')).toBe('q=a');
    expect(withLane('', 'attention')).toBe('');
  });
});
