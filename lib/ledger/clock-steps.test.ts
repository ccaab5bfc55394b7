import { describe, expect, it } from 'vitest';
import { arrivalsFor, MAX_CLOCK_STEPS, steadyArrival, steppedMs, withStep, type ClockStep } from './clock-steps';

const MIN = 60_000;
const HOUR = 60 * MIN;
// 2026-12-01T10:00:00Z
const T = Date.UTC(2026, 11, 1, 10, 0, 0);

describe('steadyArrival', () => {
  it('no step: the ctime itself', () => {
    expect(steadyArrival(T, [])).toBe(T);
    expect(steppedMs([])).toBe(0);
  });

  it('forward an hour at 10:00: a file of 09:58 keeps 09:58, one written at 11:02 on the new clock arrived at 10:02', () => {
    // The step was seen at 11:00:01 on the new clock; the old clock then read 10:00:01.
    const steps = withStep([], T + HOUR + 1000, HOUR);
    expect(steps).toEqual([{ before_ms: T + 1000, delta_ms: HOUR }]);
    expect(steppedMs(steps)).toBe(HOUR);
    expect(steadyArrival(T - 2 * MIN, steps)).toBe(T - 2 * MIN);
    expect(steadyArrival(T + HOUR + 2 * MIN, steps)).toBe(T + 2 * MIN);
    // Now (11:05 on the new clock) on the steady timeline is 10:05: the first file is 7 min old, the second 3.
    const now = T + HOUR + 5 * MIN - steppedMs(steps);
    expect(now - steadyArrival(T - 2 * MIN, steps)).toBe(7 * MIN);
    expect(now - steadyArrival(T + HOUR + 2 * MIN, steps)).toBe(3 * MIN);
  });

  it('back an hour at 10:00: a file written at 09:02 on the new clock arrived at 10:02; one older than the hour before keeps its ctime', () => {
    const steps = withStep([], T - HOUR + 1000, -HOUR);
    expect(steps).toEqual([{ before_ms: T + 1000, delta_ms: -HOUR }]);
    expect(steadyArrival(T - HOUR + 2 * MIN, steps)).toBe(T + 2 * MIN);
    expect(steadyArrival(T - 2 * HOUR, steps)).toBe(T - 2 * HOUR);
    // Within the hour before the step a ctime could be either: taken as written after it (the
    // index keeps the arrival of a file it knew: arrivalsFor's `known`).
    expect(steadyArrival(T - 30 * MIN, steps)).toBe(T + 30 * MIN);
  });

  it('two steps: each file loses the steps made before it was written', () => {
    // +1 h seen at 11:00 (old clock 10:00); two hours later, at true 12:00 (13:00 on it), back 1 h.
    const steps = withStep(withStep([], T + HOUR, HOUR), T + 2 * HOUR, -HOUR);
    expect(steps).toEqual([
      { before_ms: T, delta_ms: HOUR },
      { before_ms: T + 3 * HOUR, delta_ms: -HOUR },
    ]);
    expect(steppedMs(steps)).toBe(0);
    // Before both (09:00), between them (11:15 on the +1 h clock, true 10:15), after both (12:10, true 12:10).
    expect(steadyArrival(T - HOUR, steps)).toBe(T - HOUR);
    expect(steadyArrival(T + HOUR + 15 * MIN, steps)).toBe(T + 15 * MIN);
    expect(steadyArrival(T + 2 * HOUR + 10 * MIN, steps)).toBe(T + 2 * HOUR + 10 * MIN);
  });

  it('keeps at most MAX_CLOCK_STEPS steps, their sum exactly', () => {
    let steps: ClockStep[] = [];
    for (let i = 0; i < MAX_CLOCK_STEPS + 10; i++) steps = withStep(steps, T + i * HOUR, i % 2 === 0 ? 10_000 : -4_000);
    expect(steps).toHaveLength(MAX_CLOCK_STEPS);
    // 37 steps of +10 s and 37 of -4 s.
    expect(steppedMs(steps)).toBe(37 * 10_000 - 37 * 4_000);
  });
});

describe('arrivalsFor', () => {
  it('no step: nothing to compute', () => {
    expect(arrivalsFor([])).toBeUndefined();
  });

  it('a known file with the same stat identity keeps its arrival; a changed or new one is put on the steady timeline', () => {
    const steps = withStep([], T - HOUR + 1000, -HOUR);
    const known = new Map([['tasks/t1/heartbeat.fang.json', { stat: 'f:10:1:1:7', arrival_ms: T - 30 * MIN }]]);
    const f = arrivalsFor(steps, (rel) => known.get(rel));
    expect(f).toBeDefined();
    // The heartbeat of 09:30 known before the step keeps 09:30 (without the memory: 10:30).
    expect(f?.('tasks/t1/heartbeat.fang.json', 'f:10:1:1:7', T - 30 * MIN)).toBe(T - 30 * MIN);
    // Rewritten after the step (another stat identity), at 09:10 on the new clock: 10:10.
    expect(f?.('tasks/t1/heartbeat.fang.json', 'f:10:2:2:7', T - 50 * MIN)).toBe(T + 10 * MIN);
    expect(f?.('tasks/t1/result.fang.json', 'f:9:3:3:8', T - 50 * MIN)).toBe(T + 10 * MIN);
  });
});
