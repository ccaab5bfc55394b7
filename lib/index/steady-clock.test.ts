import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openMemory } from './db';
import { writeMeta } from './store/meta';
import { bootClockMs, bootId, indexClockSteps, indexNowMs } from './steady-clock';

describe("the index's clock", () => {
  it('is the wall clock while no step was seen, and the wall clock less the steps once some were', () => {
    const db = openMemory();
    expect(indexClockSteps(db)).toEqual([]);
    expect(indexNowMs(db, 1_000_000_000)).toBe(1_000_000_000);
    // +1 h, then -15 min: the index's clock is 45 min behind the wall clock.
    writeMeta(db, 'clock', { steps: [{ before_ms: 900_000_000, delta_ms: 3_600_000 }, { before_ms: 990_000_000, delta_ms: -900_000 }], boot_id: null, wall_minus_boot_ms: null });
    expect(indexNowMs(db, 1_000_000_000)).toBe(1_000_000_000 - 2_700_000);
  });

  it('a clock row that does not read as one is no step', () => {
    const db = openMemory();
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('clock', '{\"steps\":[{\"before_ms\":\"x\"}]}')").run();
    expect(indexNowMs(db, 5_000)).toBe(5_000);
  });

  it('the boot clock counts up from boot (CLOCK_BOOTTIME on Linux), and the boot has an id', () => {
    const a = bootClockMs();
    const b = bootClockMs();
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThanOrEqual(a);
    if (fs.existsSync('/proc/uptime')) {
      // /proc/uptime is seconds since boot, in 10 ms steps: read again a moment later, within a second.
      expect(Math.abs(a / 1000 - Number(fs.readFileSync('/proc/uptime', 'latin1').split(' ')[0]))).toBeLessThan(1);
      expect(bootId()).toMatch(/^[0-9a-f-]{36}$/);
    } else {
      expect(bootId()).toBeNull();
    }
  });
});
