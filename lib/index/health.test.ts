import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { currentHealth, healthChanges, healthFileOf, readHealth, writeHealth } from './health';

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
    expect(fs.existsSync(healthFileOf(db))).toBe(false); // ok is no file
    writeHealth(db, { state: 'ok' }); // ok again: still no file, nothing moved
    expect(moved()).toBe(false);
  });
});

describe('currentHealth (what GET /api/board adds to every answer)', () => {
  it('follows every write, and keeps its object while nothing changed', () => {
    const other = path.join(tmp, 'other.sqlite'); // its own file: not the test above's
    expect(currentHealth(other)).toEqual({ state: 'ok' }); // no file
    writeHealth(other, missing(0));
    const first = currentHealth(other);
    expect(first).toEqual(missing(0));
    for (let i = 0; i < 20; i++) expect(currentHealth(other)).toBe(first); // read again every 8th call, still the same object
    writeHealth(other, missing(1));
    expect(currentHealth(other)).toEqual(missing(1)); // a new file renamed over it: read at once
    writeHealth(other, { state: 'ok' });
    expect(currentHealth(other)).toEqual({ state: 'ok' });
    expect(fs.existsSync(healthFileOf(other))).toBe(false); // ok is no file: nothing left in the temp directory
    writeHealth(other, missing(2));
    fs.rmSync(healthFileOf(other));
    expect(currentHealth(other)).toEqual({ state: 'ok' }); // removed: ok
  });
});
