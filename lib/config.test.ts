import { afterEach, describe, expect, it } from 'vitest';
import { SETTING_NAMES, settings } from './config';

const saved = Object.fromEntries(SETTING_NAMES.map((n) => [n, process.env[n]]));
afterEach(() => {
  for (const n of SETTING_NAMES) {
    const v = saved[n];
    if (v === undefined) delete process.env[n];
    else process.env[n] = v;
  }
});

describe('settings', () => {
  it('stale_after: 300 000 ms unless set (README: default 300 s); a set value is milliseconds; empty is unset', () => {
    delete process.env.CLAIMBOARD_STALE_AFTER_MS;
    expect(settings.staleAfterMs()).toBe(300_000);
    process.env.CLAIMBOARD_STALE_AFTER_MS = '30000';
    expect(settings.staleAfterMs()).toBe(30_000);
    process.env.CLAIMBOARD_STALE_AFTER_MS = '';
    expect(settings.staleAfterMs()).toBe(300_000);
  });

  it('a value that does not parse throws naming the variable, and only from its own getter', () => {
    process.env.CLAIMBOARD_STALE_AFTER_MS = 'five minutes';
    expect(() => settings.staleAfterMs()).toThrow(/^CLAIMBOARD_STALE_AFTER_MS: /);
    process.env.CLAIMBOARD_STALE_AFTER_MS = '-1';
    expect(() => settings.staleAfterMs()).toThrow(/^CLAIMBOARD_STALE_AFTER_MS: /);
    process.env.CLAIMBOARD_READ_TOKEN = 'secret';
    expect(settings.readToken()).toBe('secret');
  });

  it('read-only is on for exactly "1"', () => {
    delete process.env.CLAIMBOARD_READ_ONLY;
    expect(settings.readOnly()).toBe(false);
    process.env.CLAIMBOARD_READ_ONLY = '1';
    expect(settings.readOnly()).toBe(true);
    process.env.CLAIMBOARD_READ_ONLY = 'true';
    expect(settings.readOnly()).toBe(false);
  });

  it('operators: comma-separated names, trimmed, empty entries dropped; none when unset', () => {
    process.env.CLAIMBOARD_OPERATORS = ' ops , boss,,';
    expect(settings.operators()).toEqual(['ops', 'boss']);
    delete process.env.CLAIMBOARD_OPERATORS;
    expect(settings.operators()).toEqual([]);
  });

  it('follows a change of the variable between reads (tests set them between cases)', () => {
    process.env.CLAIMBOARD_CHANNEL = '/srv/a';
    expect(settings.channel()).toBe('/srv/a');
    process.env.CLAIMBOARD_CHANNEL = '/srv/b';
    expect(settings.channel()).toBe('/srv/b');
    delete process.env.CLAIMBOARD_CHANNEL;
    expect(settings.channel()).toBeUndefined();
    delete process.env.CLAIMBOARD_READ_TOKEN;
    expect(settings.readToken()).toBe('');
  });
});
