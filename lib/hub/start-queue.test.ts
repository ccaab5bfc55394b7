import { describe, expect, it } from 'vitest';
import { StartQueue } from './start-queue';

/** A start that runs until `finish` is called, noting when it begins and ends. */
function held(name: string, log: string[]): { run: () => Promise<void>; finish: () => void } {
  let finish: () => void = () => {};
  return {
    run: () => {
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

  it('is idle at once when nothing was queued', async () => {
    await expect(new StartQueue().idle()).resolves.toBeUndefined();
  });
});
