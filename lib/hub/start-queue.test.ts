import { describe, expect, it } from 'vitest';
import { StartQueue } from './start-queue';

/** A start that runs until `finish` is called, noting when it begins and ends; `handOff` calls the hand-off it was given. */
function held(name: string, log: string[]): { run: (handOff: () => void) => Promise<void>; finish: () => void; handOff: () => void; handOffAgain: () => void } {
  let finish: () => void = () => {};
  let given: () => void = () => {};
  return {
    handOff: () => {
      log.push(`${name} hands off`);
      given();
    },
    handOffAgain: () => given(),
    run: (handOff) => {
      given = handOff;
      log.push(`${name} begins`);
      return new Promise<void>((r) => {
        finish = () => {
          log.push(`${name} ends`);
          r();
        };
      });
    },
    finish: () => finish(),
  };
}

describe('StartQueue', () => {
  it('runs one start at a time, warm ones ahead of the cold ones waiting, and goes on after a start that throws', async () => {
    const log: string[] = [];
    const q = new StartQueue();
    const a = held('cold a', log);
    const b = held('cold b', log);
    const c = held('warm c', log);
    const ra = q.push(false, a.run);
    const rb = q.push(false, b.run);
    const rc = q.push(true, c.run);
    const rd = q.push(true, () => {
      log.push('warm d throws');
      return Promise.reject(new Error('no index'));
    });
    expect(log).toEqual(['cold a begins']);
    a.finish();
    await ra;
    expect(log).toEqual(['cold a begins', 'cold a ends', 'warm c begins']);
    c.finish();
    await rc;
    await rd;
    expect(log).toEqual(['cold a begins', 'cold a ends', 'warm c begins', 'warm c ends', 'warm d throws', 'cold b begins']);
    const idle = q.idle();
    b.finish();
    await rb;
    await idle;
    expect(log[log.length - 1]).toBe('cold b ends');
  });

  it('a start that hands off lets the next begin beside it; a third waits until one of the two ends; idle once all have', async () => {
    const log: string[] = [];
    const q = new StartQueue();
    const [a, b, c] = [held('a', log), held('b', log), held('c', log)];
    const ra = q.push(false, a.run);
    const rb = q.push(false, b.run);
    const rc = q.push(false, c.run);
    a.handOff();
    expect(log).toEqual(['a begins', 'a hands off', 'b begins']);
    b.handOff();
    expect(log).toEqual(['a begins', 'a hands off', 'b begins', 'b hands off']); // two under way: c waits
    const idle = q.idle();
    let isIdle = false;
    void idle.then(() => (isIdle = true));
    a.finish();
    await ra;
    expect(log.slice(-2)).toEqual(['a ends', 'c begins']);
    b.finish();
    await rb;
    c.finish();
    await rc;
    await idle;
    expect(isIdle).toBe(true);
    expect(log.slice(-2)).toEqual(['b ends', 'c ends']);
  });

  it('a hand-off counts once: a start that hands off twice lets one start begin, not two', async () => {
    const log: string[] = [];
    const q = new StartQueue();
    const [a, b, c] = [held('a', log), held('b', log), held('c', log)];
    const ra = q.push(false, a.run);
    void q.push(false, b.run);
    void q.push(false, c.run);
    a.handOff();
    a.handOffAgain();
    a.finish();
    await ra;
    expect(log).toEqual(['a begins', 'a hands off', 'b begins', 'a ends']); // b has not handed off: c waits
    b.finish();
    await new Promise((r) => setImmediate(r));
    expect(log.slice(-2)).toEqual(['b ends', 'c begins']);
    c.finish();
    await q.idle();
  });

  it('is not idle while a start that handed off is still under way', async () => {
    const log: string[] = [];
    const q = new StartQueue();
    const a = held('a', log);
    const ra = q.push(false, a.run);
    a.handOff();
    let isIdle = false;
    const idle = q.idle().then(() => (isIdle = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(isIdle).toBe(false);
    a.finish();
    await ra;
    await idle;
    expect(isIdle).toBe(true);
  });

  it('is idle at once when nothing was queued', async () => {
    await expect(new StartQueue().idle()).resolves.toBeUndefined();
  });
});
