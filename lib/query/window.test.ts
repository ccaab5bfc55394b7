/** The fleet history's window (window.ts): named ranges before now, explicit instants, zoom and pan. */
import { describe, expect, it } from 'vitest';
import { fitRange, panWindow, parseInstant, resolveWindow, windowAsked, zoomWindow } from './window';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const H = 3_600_000;

describe('parseInstant', () => {
  it('reads ms since the epoch and RFC 3339 (a date alone at 00:00 UTC, an offset converted); anything else is NaN', () => {
    expect(parseInstant('1764504000000')).toBe(1764504000000);
    expect(parseInstant('2026-11-30T12:00:00Z')).toBe(NOW);
    expect(parseInstant('2026-11-30T14:00:00+02:00')).toBe(NOW);
    expect(parseInstant('2026-11-30')).toBe(NOW - 12 * H);
    expect(parseInstant('last tuesday')).toBeNaN();
    expect(parseInstant('2026-11-30T12:00')).toBeNaN(); // no offset: whose clock?
  });
});

describe('resolveWindow', () => {
  const ok = (ask: Parameters<typeof resolveWindow>[0]) => {
    const r = resolveWindow(ask, NOW);
    return r.ok ? [r.window.from_ms, r.window.to_ms] : r.reason;
  };
  it('a range ends at now; from and to are taken as given; one of them with the range', () => {
    expect(ok({})).toEqual([NOW - 24 * H, NOW]);
    expect(ok({ range: '1h' })).toEqual([NOW - H, NOW]);
    expect(ok({ range: '7d' })).toEqual([NOW - 7 * 24 * H, NOW]);
    expect(ok({ range: '30D' })).toEqual([NOW - 30 * 24 * H, NOW]);
    expect(ok({ from: '2026-11-20', to: '2026-11-21' })).toEqual([NOW - 10.5 * 24 * H, NOW - 9.5 * 24 * H]);
    expect(ok({ from: '2026-11-20' })).toEqual([NOW - 10.5 * 24 * H, NOW - 9.5 * 24 * H]);
    expect(ok({ to: '2026-11-21', range: '7d' })).toEqual([NOW - 16.5 * 24 * H, NOW - 9.5 * 24 * H]);
  });
  it('says why a window is not one', () => {
    expect(ok({ range: 'week' })).toBe('range: "week" is not one of 1h, 24h, 7d, 30d');
    expect(ok({ to: 'soon' })).toBe('to: "soon" is neither ms since the epoch nor an RFC 3339 time');
    expect(ok({ from: '2026-11-21', to: '2026-11-21' })).toBe('from must be before to');
    expect(ok({ from: '2024-01-01', to: '2026-01-01' })).toBe('the window is longer than 366 days: ask for less');
  });
});

describe('the range in force', () => {
  const named = (ask: Parameters<typeof resolveWindow>[0]) => {
    const r = resolveWindow(ask, NOW);
    return r.ok ? (r.range ?? null) : r.reason;
  };
  it('names the range before now; a window from or to an instant is no named range', () => {
    expect(named({ range: '1h' })).toBe('1h');
    expect(named({})).toBe('24h');
    expect(named({ from: '2026-11-20' })).toBeNull();
    expect(named({ to: '2026-11-21', range: '7d' })).toBeNull();
  });
  it('a window is asked for by a range, a from or a to that is not blank', () => {
    expect(windowAsked({})).toBe(false);
    expect(windowAsked({ range: ' ', from: '', to: null })).toBe(false);
    expect(windowAsked({ range: '7d' })).toBe(true);
    expect(windowAsked({ from: '2026-11-20' })).toBe(true);
    expect(windowAsked({ to: '2026-11-21' })).toBe(true);
  });
});

describe('fitRange', () => {
  const M = 60_000;
  const D = 24 * H;
  it('is the shortest range that starts at or before the earliest claim arrival', () => {
    expect(fitRange(NOW - 5 * M, NOW)).toBe('1h'); // a fresh fleet: its holds span minutes
    expect(fitRange(NOW, NOW)).toBe('1h');
    expect(fitRange(NOW - H, NOW)).toBe('1h'); // on the edge: the window [now - 1 h, now) has it
    expect(fitRange(NOW - H - 1, NOW)).toBe('24h');
    expect(fitRange(NOW - D, NOW)).toBe('24h');
    expect(fitRange(NOW - D - 1, NOW)).toBe('7d');
    expect(fitRange(NOW - 7 * D - 1, NOW)).toBe('30d');
    expect(fitRange(NOW - 30 * D, NOW)).toBe('30d');
  });
  it('is the longest with no hold, or with one that began before the longest range', () => {
    expect(fitRange(null, NOW)).toBe('30d');
    expect(fitRange(NOW - 45 * D, NOW)).toBe('30d');
  });
});

describe('zoom and pan', () => {
  const w = { from_ms: 10 * H, to_ms: 14 * H };
  it('zooms around the middle, within a minute and a year; pans by a share of the length', () => {
    expect(zoomWindow(w, 0.5)).toEqual({ from_ms: 11 * H, to_ms: 13 * H });
    expect(zoomWindow(w, 2)).toEqual({ from_ms: 8 * H, to_ms: 16 * H });
    expect(zoomWindow({ from_ms: 0, to_ms: 80_000 }, 0.5)).toEqual({ from_ms: 10_000, to_ms: 70_000 });
    expect(panWindow(w, -0.25)).toEqual({ from_ms: 9 * H, to_ms: 13 * H });
    expect(panWindow(w, 0.5)).toEqual({ from_ms: 12 * H, to_ms: 16 * H });
  });
});
