import { describe, expect, it, vi } from 'vitest';
import { LookBudget, WRITES_FIRST_MAX_MS, type LookTimes } from './look-budget';

const times = (quickMs: number, sweepBusyMs: number): LookTimes => ({ quickMs, sweepBusyMs });

describe('LookBudget', () => {
  it('alone: 20x its own look, at least the floors (1 s; the sweep floor given)', () => {
    const b = new LookBudget();
    b.join(times(30, 500));
    expect(b.quickDelayMs()).toBe(1000); // 20 x 30 = 600, below the 1 s floor
    expect(b.sweepDelayMs(10_000)).toBe(10_000); // 20 x 500 = 10,000
    const big = new LookBudget();
    big.join(times(400, 5000));
    expect(big.quickDelayMs()).toBe(8000);
    expect(big.sweepDelayMs(10_000)).toBe(100_000);
  });

  it('ten channels share one budget: each waits 20x the sum, so they look as often in all as one channel of their size', () => {
    const b = new LookBudget();
    const leaves = Array.from({ length: 10 }, () => b.join(times(40, 500)));
    expect(b.quickDelayMs()).toBe(8000); // 20 x 10 x 40
    expect(b.sweepDelayMs(10_000)).toBe(100_000); // 20 x 10 x 500
    // A channel that leaves no longer counts.
    for (const leave of leaves.slice(0, 9)) leave();
    expect(b.quickDelayMs()).toBe(1000);
    expect(b.sweepDelayMs(10_000)).toBe(10_000);
  });

  it('reads the members when asked (a rebuild replaces what a member reads from)', () => {
    const b = new LookBudget();
    let quick = 10;
    b.join({
      get quickMs() {
        return quick;
      },
      sweepBusyMs: 0,
    });
    expect(b.quickDelayMs()).toBe(1000);
    quick = 100;
    expect(b.quickDelayMs()).toBe(2000);
  });
});

describe('LookBudget.turn', () => {
  it('runs one waiting slice per turn, in the order they came, whoever\'s they are; one taken out of the line does not run', async () => {
    vi.useFakeTimers();
    try {
      const b = new LookBudget();
      const ran: string[] = [];
      // Two channels each a slice into their sweep, and a third that stops before its turn.
      const again = (who: string, left: number) => {
        ran.push(`${who}${left}`);
        if (left > 1) b.turn(() => again(who, left - 1));
      };
      b.turn(() => again('a', 3));
      b.turn(() => again('b', 2));
      const leave = b.turn(() => ran.push('c'));
      leave();
      await vi.advanceTimersByTimeAsync(1);
      expect(ran).toEqual(['a3']); // one slice per turn, not every slice that is due
      await vi.advanceTimersByTimeAsync(1);
      expect(ran).toEqual(['a3', 'b2']);
      await vi.advanceTimersByTimeAsync(10);
      expect(ran).toEqual(['a3', 'b2', 'a2', 'b1', 'a1']);
      // Nothing left armed once the line is empty (the budget's own timer: the worker's timer count
      // also counts what other files' code left running, e.g. under load).
      expect(b.armed).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a slice that throws does not stop the line', async () => {
    vi.useFakeTimers();
    try {
      const b = new LookBudget();
      const ran: string[] = [];
      b.turn(() => {
        throw new Error('slice failed');
      });
      b.turn(() => ran.push('next'));
      await vi.advanceTimersByTimeAsync(1).catch(() => {});
      await vi.advanceTimersByTimeAsync(1);
      expect(ran).toEqual(['next']);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('LookBudget.hold', () => {
  it('no turn runs while a hold is taken; they run in order once every hold is released', async () => {
    vi.useFakeTimers();
    try {
      const b = new LookBudget();
      const ran: string[] = [];
      const first = b.hold();
      const second = b.hold();
      b.turn(() => ran.push('a'));
      b.turn(() => ran.push('b'));
      await vi.advanceTimersByTimeAsync(50);
      expect(ran).toEqual([]);
      first();
      first(); // a release counts once
      await vi.advanceTimersByTimeAsync(50);
      expect(ran).toEqual([]); // the second hold is still taken
      second();
      await vi.advanceTimersByTimeAsync(1);
      expect(ran).toEqual(['a']);
      await vi.advanceTimersByTimeAsync(1);
      expect(ran).toEqual(['a', 'b']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a hold given a longest time ends by itself once it has passed (a cold first index that runs long)', async () => {
    vi.useFakeTimers();
    try {
      const b = new LookBudget();
      const ran: string[] = [];
      const release = b.hold(60_000);
      b.turn(() => ran.push('a'));
      await vi.advanceTimersByTimeAsync(59_999);
      expect(ran).toEqual([]);
      await vi.advanceTimersByTimeAsync(2); // 60,000 ms: the hold ends, the turn 1 ms after
      expect(ran).toEqual(['a']);
      release(); // late: counts nothing
      const next = b.hold();
      b.turn(() => ran.push('b'));
      await vi.advanceTimersByTimeAsync(10);
      expect(ran).toEqual(['a']); // the hold taken after it still holds
      next();
      await vi.advanceTimersByTimeAsync(1);
      expect(ran).toEqual(['a', 'b']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a hold taken right after another is released holds the turn that release armed (one start after another)', async () => {
    vi.useFakeTimers();
    try {
      const b = new LookBudget();
      const ran: string[] = [];
      const first = b.hold();
      b.turn(() => ran.push('a'));
      first(); // arms the turn, 1 ms away
      const second = b.hold();
      await vi.advanceTimersByTimeAsync(5);
      expect(ran).toEqual([]);
      second();
      await vi.advanceTimersByTimeAsync(1);
      expect(ran).toEqual(['a']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes first: a look waits while a member has a write pending, then runs; never longer than WRITES_FIRST_MAX_MS', async () => {
    vi.useFakeTimers();
    try {
      // The budget's clock is the fake timers' (Date.now is faked with them).
      const b = new LookBudget(() => Date.now());
      let pending = true;
      b.join({ quickMs: 40, sweepBusyMs: 0, get writePending() {
        return pending;
      } });
      const ran: string[] = [];
      b.turn(() => ran.push('look'));
      await vi.advanceTimersByTimeAsync(30);
      expect(ran).toEqual([]); // the write's pump (30 ms after its event) goes first
      pending = false;
      await vi.advanceTimersByTimeAsync(5);
      expect(ran).toEqual(['look']);
      // A fleet that never stops writing: each look waits WRITES_FIRST_MAX_MS, then runs.
      pending = true;
      b.turn(() => ran.push('look 2'));
      await vi.advanceTimersByTimeAsync(WRITES_FIRST_MAX_MS - 5);
      expect(ran).toEqual(['look']);
      await vi.advanceTimersByTimeAsync(10);
      expect(ran).toEqual(['look', 'look 2']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('lookMayRun: false while a write is pending, until WRITES_FIRST_MAX_MS since the first ask; the wait starts again after', () => {
    const b = new LookBudget(() => 0);
    let pending = false;
    b.join({ quickMs: 0, sweepBusyMs: 0, get writePending() {
      return pending;
    } });
    expect(b.lookMayRun(0)).toBe(true);
    pending = true;
    expect([b.lookMayRun(1000), b.lookMayRun(1000 + WRITES_FIRST_MAX_MS - 1), b.lookMayRun(1000 + WRITES_FIRST_MAX_MS)]).toEqual([false, false, true]);
    expect(b.lookMayRun(2000)).toBe(false); // a new wait
    pending = false;
    expect(b.lookMayRun(2001)).toBe(true);
  });
});
