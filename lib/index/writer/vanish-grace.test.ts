import { afterEach, describe, expect, it, vi } from 'vitest';
import { VanishGrace } from './vanish-grace';

/** performance.now() as the test sets it: the grace's only clock. */
let now = 1000;
afterEach(() => {
  vi.restoreAllMocks();
  now = 1000;
});
const clock = () => vi.spyOn(performance, 'now').mockImplementation(() => now);

describe('VanishGrace over passes', () => {
  it('holds a pass that found a file vanished until the grace ends, then stores whatever the next pass finds', () => {
    clock();
    const g = new VanishGrace();
    expect(g.overPass('live', true, 1000)).toBe(true);
    expect(g.nextEnd()).toBe(2000);
    expect(g.ended()).toEqual([]);
    now = 1500;
    expect(g.overPass('live', true, 1000)).toBe(true);
    now = 2000;
    expect(g.ended()).toEqual(['tasks/live']);
    expect(g.overPass('live', true, 1000)).toBe(false);
    // Stored: a new vanish starts a new grace.
    expect(g.overPass('live', true, 1000)).toBe(true);
  });

  it('a pass that found nothing vanished ends the grace; none at all with a grace of 0', () => {
    clock();
    const g = new VanishGrace();
    expect(g.overPass('live', true, 1000)).toBe(true);
    expect(g.overPass('live', false, 1000)).toBe(false);
    now = 1200;
    expect(g.overPass('live', true, 1000)).toBe(true);
    expect(g.nextEnd()).toBe(1000 + 1000); // the look first set for the first hold is still due
    expect(g.overPass('other', true, 0)).toBe(false);
  });

  it('a look of the folder inside the grace does not drop the look due at its end when the next pass is held again', () => {
    clock();
    const g = new VanishGrace();
    expect(g.overPass('live', true, 1000)).toBe(true);
    now = 1300;
    g.begin();
    // The folder changed and lost nothing: the look's own wait for it ends.
    const dirty = new Set(['live']);
    g.overLook(new Set(), dirty, false, false, 1000);
    expect(g.nextEnd()).toBeNull();
    // Its pass found a file vanished again, inside the first hold's grace: held, and looked at when that grace ends.
    expect(g.overPass('live', true, 1000)).toBe(true);
    expect(g.nextEnd()).toBe(2000);
    now = 2000;
    expect(g.ended()).toEqual(['tasks/live']);
  });

  it('the channel level (key ""): a read after the look held it to the end of its grace is stored whatever it finds', () => {
    clock();
    const g = new VanishGrace();
    g.begin();
    expect(g.overLook(new Set(), new Set(), true, true, 1000)).toEqual({ channelDirty: false, channelHeld: true });
    expect(g.ended()).toEqual([]);
    now = 2000;
    expect(g.ended()).toEqual(['agents']);
    g.begin();
    expect(g.overLook(new Set(), new Set(), true, true, 1000)).toEqual({ channelDirty: true, channelHeld: false });
    expect(g.overPass('', true, 1000)).toBe(false);
    expect(g.nextEnd()).toBeNull();
  });
});
