import { describe, expect, it } from 'vitest';
import { ago, clockOffsetSentence, formatDuration, utcClock, writerFull, writerShort, writerTime } from './time';

describe('formatDuration / ago', () => {
  it('is coarse and short', () => {
    expect(formatDuration(40_000)).toBe('40 s');
    expect(formatDuration(12 * 60_000 + 59_000)).toBe('12 min');
    expect(formatDuration(3 * 3_600_000 + 20 * 60_000)).toBe('3 h 20 min');
    expect(formatDuration(11 * 3_600_000 + 20 * 60_000)).toBe('11 h');
    expect(formatDuration(5 * 86_400_000)).toBe('5 days');
  });
  it('says ago, or just now within 5 s', () => {
    expect(ago(0, 12 * 60_000)).toBe('12 min ago');
    expect(ago(0, 2_000)).toBe('just now');
    expect(ago(0, 4_999)).toBe('just now');
    expect(ago(0, 5_000)).toBe('5 s ago');
  });
  it('never says a negative age: an instant after now (the clock stepped back) is just now', () => {
    expect(ago(3 * 60_000, 0)).toBe('just now');
    // The clock stepped back an hour after a file arrived: its arrival reads an hour ahead of now.
    expect(ago(3_600_000, 0)).toBe('just now');
    expect(ago(1, 0)).toBe('just now');
  });
});

describe('writer times', () => {
  it('converts offsets to UTC and says so', () => {
    const w = writerTime('2026-11-20T11:14:01.123456789+02:00');
    expect(w?.time).toBe('09:14:01');
    expect(w?.date).toBe('2026-11-20');
    expect(w?.converted).toBe(true);
    expect(writerTime('2026-11-20T09:14:01Z')?.converted).toBe(false);
    expect(writerShort('2026-11-20 09:06:00z')).toBe('09:06 UTC');
    expect(writerFull('0052-01-02T03:04:05Z')).toBe('0052-01-02 03:04:05 UTC');
  });
  it('shows unparseable text as written', () => {
    expect(writerShort('yesterday')).toBe('yesterday');
  });
  it('formats local instants in UTC', () => {
    expect(utcClock(Date.UTC(2026, 10, 30, 9, 14, 3))).toBe('09:14:03');
    expect(utcClock(Date.UTC(2026, 10, 30, 9, 14, 3), { date: true })).toBe('2026-11-30 09:14:03');
  });
});

describe('clockOffsetSentence', () => {
  it('says ahead or behind, sync included', () => {
    expect(clockOffsetSentence(3 * 3_600_000 + 10_000)).toBe('its clock runs ~3 h ahead of ours, sync included');
    expect(clockOffsetSentence(-90_000)).toBe('its clock runs ~1 min behind ours, sync included');
    expect(clockOffsetSentence(500)).toMatch(/agrees/);
    expect(clockOffsetSentence(null)).toMatch(/cannot be estimated/);
  });
});
