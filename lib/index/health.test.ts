import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { healthChanges, healthFileOf, readHealth, writeHealth } from './health';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-health-'));
const db = path.join(tmp, 'index.sqlite');
afterAll(() => {
  fs.rmSync(healthFileOf(db), { force: true });
  fs.rmSync(tmp, { recursive: true, force: true });
});

const missing = (retries: number, reason = 'the channel folder /x is missing') =>
  ({ state: 'degraded', code: 'folder_missing', reason, since_ms: 1_000, retries }) as const;

describe('healthChanges (what the event stream tells open pages)', () => {
  it('says each change of state, code or reason once, and not a rewrite that shows the same', () => {
    const moved = healthChanges(db); // no file yet: ok
    expect(moved()).toBe(false);
    writeHealth(db, { state: 'ok' });
    expect(moved()).toBe(false); // ok as before
    writeHealth(db, missing(0));
    expect(readHealth(db)).toEqual(missing(0));
    expect(moved()).toBe(true);
    expect(moved()).toBe(false); // asked again, nothing new
    writeHealth(db, missing(1)); // retried: the banner reads the same
    expect(moved()).toBe(false);
    writeHealth(db, missing(2, 'the channel folder /x is missing (ENOENT)'));
    expect(moved()).toBe(true);
    writeHealth(db, { state: 'ok' });
    expect(moved()).toBe(true);
    fs.rmSync(healthFileOf(db)); // no file reads ok: still ok
    expect(moved()).toBe(false);
  });
});
