import { describe, expect, it } from 'vitest';
import { beyondSentence, countWords, durationDomain, durationWords, logTicks, percentWords, placeMarkLabels, tickWords } from './tuning';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('durationWords', () => {
  it('says sub-second durations in ms and seconds to a tenth below 10 s', () => {
    expect(durationWords(850)).toBe('850 ms');
    expect(durationWords(1500)).toBe('1.5 s');
    expect(durationWords(4240)).toBe('4.2 s');
    // 9.96 s rounds to a tenth as 10.0: said "10 s", never "10.0 s" or "9.96 s".
    expect(durationWords(9960)).toBe('10 s');
  });
  it('says whole seconds, minutes with seconds below 10 min, hours with minutes below 10 h', () => {
    expect(durationWords(42 * S)).toBe('42 s');
    expect(durationWords(59.6 * S)).toBe('1 min');
    expect(durationWords(4 * M + 30 * S)).toBe('4 min 30 s');
    expect(durationWords(5 * M)).toBe('5 min');
    expect(durationWords(12 * M + 30 * S)).toBe('12 min');
    expect(durationWords(2 * H + 5 * M)).toBe('2 h 5 min');
    expect(durationWords(11 * H + 5 * M)).toBe('11 h');
    expect(durationWords(3 * D + 4 * H)).toBe('3 days 4 h');
    expect(durationWords(12 * D + 4 * H)).toBe('12 days');
  });
  it('reads a negative duration as its magnitude and a non-number as ?', () => {
    expect(durationWords(-30 * S)).toBe('30 s');
    expect(durationWords(Number.NaN)).toBe('?');
  });
});

describe('log axis', () => {
  it('marks 1 s … 1 h with the round durations in words', () => {
    const ticks = logTicks(S, H, 10);
    expect(ticks).toEqual([S, 5 * S, 30 * S, M, 5 * M, 30 * M, H]);
    expect(ticks.map(tickWords)).toEqual(['1 s', '5 s', '30 s', '1 min', '5 min', '30 min', '1 h']);
  });
  it('drops the minor ticks first, then every other major one, when space is short', () => {
    expect(logTicks(S, H, 4)).toEqual([S, M, H]);
    // 100 ms … 30 days: majors 100 ms, 1 s, 1 min, 1 h, 1 day, 7 days, 30 days (7) → every other: 4.
    expect(logTicks(100, 30 * D, 4)).toEqual([100, M, D, 30 * D]);
  });
  it('spans at least 1 s … 1 h, and snaps a wider span outwards to round durations', () => {
    expect(durationDomain([], [])).toEqual([S, H]);
    // A 2 h bucket widens the end to the next round duration, 6 h; a 300 ms one the start to 100 ms.
    expect(durationDomain([{ lo_ms: 300, hi_ms: 400, n: 1 }, { lo_ms: 1.5 * H, hi_ms: 2 * H, n: 3 }], [])).toEqual([100, 6 * H]);
    // A line at 50 min needs 62.5 min for its label: the end goes to 6 h.
    expect(durationDomain([], [50 * M])).toEqual([S, 6 * H]);
    // An empty bucket does not count; a bucket from 0 counts from half its upper edge (40 ms → 10 ms).
    expect(durationDomain([{ lo_ms: 0, hi_ms: 80, n: 2 }, { lo_ms: 10 * D, hi_ms: 20 * D, n: 0 }], [])).toEqual([10, H]);
  });
});

describe('shares and sentences', () => {
  it('says a share as a percentage a person reads', () => {
    expect(percentWords(0)).toBe('0 %');
    expect(percentWords(0.0004)).toBe('under 0.1 %');
    expect(percentWords(3 / 71)).toBe('4.2 %');
    expect(percentWords(0.37)).toBe('37 %');
    expect(percentWords(1)).toBe('100 %');
  });
  it('counts with the right noun', () => {
    expect(countWords(1, 'gap', 'gaps')).toBe('1 gap');
    expect(countWords(12_000, 'gap', 'gaps')).toBe('12,000 gaps');
  });
  it('says how many gaps were longer than the threshold', () => {
    expect(beyondSentence(3, 3 / 71, 5 * M)).toBe('3 gaps (4.2 %) were longer than the threshold (5 min).');
    expect(beyondSentence(1, 1 / 4, 2 * S)).toBe('1 gap (25 %) was longer than the threshold (2 s).');
    expect(beyondSentence(0, 0, 30 * S)).toBe('No gap was longer than the threshold (30 s).');
    expect(beyondSentence(0, null, 30 * S)).toBe('No heartbeat gap has been observed yet.');
  });
});

describe('placeMarkLabels', () => {
  // A 300 px plot with 30 px of margin each side: labels may run from -30 to 330.
  it('puts a single label to the right of its line, or to its left near the right edge', () => {
    expect(placeMarkLabels([{ x: 100, width: 90 }], -30, 330)).toEqual([{ anchor: 'start', row: 0 }]);
    // 250 + 4 + 90 = 344 > 330: to the left.
    expect(placeMarkLabels([{ x: 250, width: 90 }], -30, 330)).toEqual([{ anchor: 'end', row: 0 }]);
  });
  it('points two labels outwards, so neither crosses the other line; rows in the lines’ order', () => {
    // The threshold in force at 120 px, the suggested one at 180 px (a phone's 20 s and 2 min).
    expect(placeMarkLabels([{ x: 120, width: 100 }, { x: 180, width: 100 }], -30, 330)).toEqual([
      { anchor: 'end', row: 0 },
      { anchor: 'start', row: 1 },
    ]);
    // The suggested one left of the one in force: it points left, the other right.
    expect(placeMarkLabels([{ x: 180, width: 100 }, { x: 120, width: 100 }], -30, 330)).toEqual([
      { anchor: 'start', row: 0 },
      { anchor: 'end', row: 1 },
    ]);
  });
  it('lifts a label that must cross the other line above it', () => {
    // At 20 px the left label does not fit to the left (20 - 4 - 100 < -30): it goes right and
    // spans 24..124, across the line at 60 px, so it takes the top row and that line starts below.
    expect(placeMarkLabels([{ x: 60, width: 100 }, { x: 20, width: 100 }], -30, 330)).toEqual([
      { anchor: 'start', row: 1 },
      { anchor: 'start', row: 0 },
    ]);
  });
});
