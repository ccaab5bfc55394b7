// Tests for lib/ledger/time.ts (docs/channel-format.md T(x), §6 local instants).
// Every expected value below is worked out by hand from the rules; the arithmetic is in
// the comments where it is not obvious. The only comparisons against another
// implementation are the property checks at the end (against `Date` at ms precision).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compareTimestamps, formatLocalInstant, parseTimestamp, rfc3339, type Timestamp } from './time';

function parse(text: string): Timestamp {
  const r = parseTimestamp(text);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(text)} to parse, got: ${r.reason}`);
  return r.value;
}

/** T(x) of a text that must parse. */
function T(text: string): string {
  return rfc3339(parse(text));
}

function reasonOf(text: string): string {
  const r = parseTimestamp(text);
  if (r.ok) throw new Error(`expected ${JSON.stringify(text)} to be refused, got ${rfc3339(r.value)}`);
  return r.reason;
}

describe('T(x): the examples quoted in docs/channel-format.md', () => {
  it.each([
    ['2026-08-20T10:11:12Z', '2026-08-20T10:11:12+00:00'],
    ['2026-08-20T10:11:12.5Z', '2026-08-20T10:11:12.500+00:00'],
    ['2026-08-20T10:11:12.000001Z', '2026-08-20T10:11:12.000001+00:00'],
    ['2026-08-20T12:11:12+02:00', '2026-08-20T10:11:12+00:00'],
  ])('%s renders %s', (input, expected) => {
    expect(T(input)).toBe(expected);
  });
});

describe('fraction digits', () => {
  // nanos = the digits padded to 9; printed with 3 digits if nanos % 1e6 == 0,
  // else 6 if nanos % 1e3 == 0, else 9.
  it.each([
    ['.1', '.100'], // 100_000_000 ns: whole ms
    ['.12', '.120'], // 120_000_000 ns
    ['.123', '.123'], // 123_000_000 ns
    ['.1234', '.123400'], // 123_400_000 ns: not whole ms, whole µs
    ['.12345', '.123450'], // 123_450_000 ns
    ['.123456', '.123456'], // 123_456_000 ns
    ['.1234567', '.123456700'], // 123_456_700 ns: not whole µs
    ['.12345678', '.123456780'], // 123_456_780 ns
    ['.123456789', '.123456789'],
    ['.1234567891', '.123456789'], // 10th digit truncated
    ['.1234567899', '.123456789'], // truncated, not rounded
    ['.123456789123456789', '.123456789'], // many extra digits, all truncated
    ['.9999999999', '.999999999'], // no rounding into the next second
    ['.000', ''], // zero nanos: no fraction at all
    ['.0', ''],
    ['.000000000', ''],
    ['.0000000009', ''], // the only non-zero digit is the 10th: truncated to 0
    ['.000000001', '.000000001'], // 1 ns
    ['.001000', '.001'], // 1_000_000 ns: whole ms
    ['.0001', '.000100'], // 100_000 ns: whole µs, not whole ms
    ['.5', '.500'],
  ])('12%s renders 12%s', (frac, expected) => {
    expect(T(`2026-08-20T10:11:12${frac}Z`)).toBe(`2026-08-20T10:11:12${expected}+00:00`);
  });

  it('keeps the nanoseconds as a number', () => {
    expect(parse('2026-08-20T10:11:12.1234567891Z').nanos).toBe(123_456_789);
    expect(parse('2026-08-20T10:11:12.5Z').nanos).toBe(500_000_000);
    expect(parse('2026-08-20T10:11:12Z').nanos).toBe(0);
  });

  it('refuses an empty fraction or a non-digit inside it', () => {
    reasonOf('2026-08-20T10:11:12.Z');
    reasonOf('2026-08-20T10:11:12.+00:00');
    reasonOf('2026-08-20T10:11:12.12a4Z');
    reasonOf('2026-08-20T10:11:12.1234567891xZ'); // digits beyond 9 must all be digits
    reasonOf('2026-08-20T10:11:12,5Z'); // comma is not a decimal point here
    reasonOf('2026-08-20T10:11:12..5Z');
  });
});

describe('offsets', () => {
  it('converts +HH:MM and -HH:MM to UTC', () => {
    // 12:11:12 at +02:00 is 2 h ahead of UTC: 10:11:12Z
    expect(T('2026-08-20T12:11:12+02:00')).toBe('2026-08-20T10:11:12+00:00');
    // 10:11:12 at -05:30 is 5 h 30 behind UTC: 10:11 + 5:30 = 15:41
    expect(T('2026-08-20T10:11:12-05:30')).toBe('2026-08-20T15:41:12+00:00');
    // +05:45 (Nepal): 10:11 - 5:45 = 4:26
    expect(T('2026-08-20T10:11:12.5+05:45')).toBe('2026-08-20T04:26:12.500+00:00');
  });

  it('accepts +23:59 and -23:59 (crossing a day)', () => {
    // 10:11 = 611 min; 611 - 1439 = -828 → previous day, -828 + 1440 = 612 min = 10:12
    expect(T('2026-08-20T10:11:12+23:59')).toBe('2026-08-19T10:12:12+00:00');
    // 611 + 1439 = 2050 → next day, 2050 - 1440 = 610 min = 10:10
    expect(T('2026-08-20T10:11:12-23:59')).toBe('2026-08-21T10:10:12+00:00');
  });

  it('refuses offsets of 24 hours or more, or minute 60', () => {
    expect(reasonOf('2026-08-20T10:11:12+24:00')).toBe('offset hour 24 is out of range');
    reasonOf('2026-08-20T10:11:12-24:00');
    reasonOf('2026-08-20T10:11:12+99:00');
    expect(reasonOf('2026-08-20T10:11:12+23:60')).toBe('offset minute 60 is out of range');
  });

  it('accepts -00:00 and +00:00 as UTC', () => {
    expect(T('2026-08-20T10:11:12-00:00')).toBe('2026-08-20T10:11:12+00:00');
    expect(T('2026-08-20T10:11:12+00:00')).toBe('2026-08-20T10:11:12+00:00');
  });

  it('accepts Z and z', () => {
    expect(T('2026-08-20T10:11:12z')).toBe('2026-08-20T10:11:12+00:00');
    expect(T('2026-08-20T10:11:12.5z')).toBe('2026-08-20T10:11:12.500+00:00');
  });

  it('refuses other offset spellings', () => {
    reasonOf('2026-08-20T10:11:12+0200'); // no colon
    reasonOf('2026-08-20T10:11:12+02'); // no minutes
    reasonOf('2026-08-20T10:11:12+2:00'); // one hour digit
    reasonOf('2026-08-20T10:11:12+02:0');
    reasonOf('2026-08-20T10:11:12+02:00:00'); // seconds in the offset
    reasonOf('2026-08-20T10:11:12UTC');
    reasonOf('2026-08-20T10:11:12 Z');
    reasonOf('2026-08-20T10:11:12Z+00:00');
    reasonOf('2026-08-20T10:11:12ZZ');
    reasonOf('2026-08-20T10:11:12\u221202:00'); // U+2212 minus sign
  });

  it('refuses a missing offset', () => {
    expect(reasonOf('2026-08-20T10:11:12')).toMatch(/offset/);
    expect(reasonOf('2026-08-20T10:11:12.5')).toMatch(/offset/);
  });
});

describe('day, month and year boundaries', () => {
  it.each([
    // 01:00 at +02:00 is 23:00 of the previous day, which is 2025-12-31
    ['2026-01-01T01:00:00+02:00', '2025-12-31T23:00:00+00:00'],
    // 23:30 at -01:00 is 00:30 of the next day, which is 2026-01-01
    ['2025-12-31T23:30:00-01:00', '2026-01-01T00:30:00+00:00'],
    // midnight crossings inside a month
    ['2026-08-20T00:30:00+01:00', '2026-08-19T23:30:00+00:00'],
    ['2026-08-20T23:30:00-01:00', '2026-08-21T00:30:00+00:00'],
    // back across March 1st: February has 28 days in 2026, 29 in 2024
    ['2026-03-01T00:30:00+01:00', '2026-02-28T23:30:00+00:00'],
    ['2024-03-01T00:30:00+01:00', '2024-02-29T23:30:00+00:00'],
    // forward from the end of February
    ['2024-02-28T23:30:00-01:00', '2024-02-29T00:30:00+00:00'],
    ['2023-02-28T23:30:00-01:00', '2023-03-01T00:30:00+00:00'],
    // 30-day month: April 30 → May 1; 31-day month back: May 1 → April 30
    ['2026-04-30T22:00:00-03:00', '2026-05-01T01:00:00+00:00'],
    ['2026-05-01T01:00:00+03:00', '2026-04-30T22:00:00+00:00'],
    // back across August 1st to July 31
    ['2026-08-01T00:00:00.000000001+00:01', '2026-07-31T23:59:00.000000001+00:00'],
  ])('%s renders %s', (input, expected) => {
    expect(T(input)).toBe(expected);
  });

  it('exposes the UTC calendar fields and keeps the original text', () => {
    const ts = parse('2026-01-01T01:00:00.25+02:00');
    expect(ts).toEqual({
      text: '2026-01-01T01:00:00.25+02:00',
      year: 2025,
      month: 12,
      day: 31,
      hour: 23,
      minute: 0,
      second: 0,
      nanos: 250_000_000,
      // 2026-01-01T00:00Z is 20454 days after the epoch (56 years × 365 + 14 leap days
      // 1972..2024); 23:00 the day before is 20453 days + 82800 s:
      // 20453 × 86400 = 1_767_139_200; + 82_800 = 1_767_222_000 s; + 250 ms.
      epochMs: 1_767_222_000_250,
    });
  });
});

describe('dates and times', () => {
  it('accepts leap days by the Gregorian rule', () => {
    expect(T('2024-02-29T00:00:00Z')).toBe('2024-02-29T00:00:00+00:00'); // divisible by 4
    expect(T('2000-02-29T12:00:00Z')).toBe('2000-02-29T12:00:00+00:00'); // divisible by 400
  });

  it('refuses impossible leap days', () => {
    expect(reasonOf('2023-02-29T00:00:00Z')).toBe('day 29 does not exist in February 2023');
    expect(reasonOf('1900-02-29T00:00:00Z')).toBe('day 29 does not exist in February 1900'); // century, not /400
    reasonOf('2024-02-30T00:00:00Z');
  });

  it('refuses out-of-range fields', () => {
    expect(reasonOf('2026-08-20T24:00:00Z')).toBe('hour 24 is out of range');
    expect(reasonOf('2026-08-20T10:60:00Z')).toBe('minute 60 is out of range');
    expect(reasonOf('2026-13-01T00:00:00Z')).toBe('month 13 is out of range');
    expect(reasonOf('2026-00-01T00:00:00Z')).toBe('month 0 is out of range');
    expect(reasonOf('2026-08-32T00:00:00Z')).toBe('day 32 is out of range');
    expect(reasonOf('2026-08-00T00:00:00Z')).toBe('day 0 is out of range');
    expect(reasonOf('2026-04-31T00:00:00Z')).toBe('day 31 does not exist in April 2026');
    reasonOf('2026-06-31T00:00:00Z');
    reasonOf('2026-09-31T00:00:00Z');
    reasonOf('2026-11-31T00:00:00Z');
    expect(reasonOf('2026-08-20T10:11:61Z')).toBe('second 61 is out of range');
    reasonOf('2026-08-20T99:99:99Z');
  });

  it('accepts the last valid values of each field', () => {
    expect(T('2026-12-31T23:59:59.999999999Z')).toBe('2026-12-31T23:59:59.999999999+00:00');
    expect(T('2026-01-31T00:00:00Z')).toBe('2026-01-31T00:00:00+00:00');
    expect(T('2026-04-30T00:00:00Z')).toBe('2026-04-30T00:00:00+00:00');
  });

  it('accepts second 60 as a leap second and renders it as 60', () => {
    expect(T('2016-12-31T23:59:60Z')).toBe('2016-12-31T23:59:60+00:00');
    // 01:59:60.5 at +02:00: the minute 01:59 becomes 23:59 of the previous day; second stays 60
    expect(T('2017-01-01T01:59:60.5+02:00')).toBe('2016-12-31T23:59:60.500+00:00');
    // any minute, as chrono allows
    expect(T('2026-08-20T12:11:60.000001+02:00')).toBe('2026-08-20T10:11:60.000001+00:00');
  });
});

describe('separator and syntax', () => {
  it('accepts T or a space, refuses a lowercase t and others', () => {
    expect(T('2026-08-20 10:11:12Z')).toBe('2026-08-20T10:11:12+00:00');
    expect(T('2026-08-20 10:11:12.5+02:00')).toBe('2026-08-20T08:11:12.500+00:00');
    expect(reasonOf('2026-08-20t10:11:12Z')).toMatch(/'T' or a space/);
    reasonOf('2026-08-20_10:11:12Z');
    reasonOf('2026-08-20\t10:11:12Z');
    reasonOf('2026-08-20  10:11:12Z');
    reasonOf('2026-08-2010:11:12Z');
  });

  it('renders the year with 4 digits', () => {
    expect(T('0052-01-01T00:00:00Z')).toBe('0052-01-01T00:00:00+00:00');
    expect(parse('0052-01-01T00:00:00Z').year).toBe(52);
    expect(T('0001-01-01T00:00:00Z')).toBe('0001-01-01T00:00:00+00:00');
    expect(T('9999-12-31T23:59:59.999999999Z')).toBe('9999-12-31T23:59:59.999999999+00:00');
  });

  it('refuses years that are not exactly 4 digits', () => {
    reasonOf('20260-08-20T10:11:12Z');
    reasonOf('26-08-20T10:11:12Z');
    reasonOf('026-08-20T10:11:12Z');
    reasonOf('+2026-08-20T10:11:12Z');
    reasonOf('-2026-08-20T10:11:12Z');
    reasonOf('+002026-08-20T10:11:12Z');
  });

  it('refuses fields that are not exactly 2 digits', () => {
    reasonOf('2026-8-20T10:11:12Z');
    reasonOf('2026-08-2T10:11:12Z');
    reasonOf('2026-08-20T1:11:12Z');
    reasonOf('2026-08-20T10:1:12Z');
    reasonOf('2026-08-20T10:11:1Z');
    reasonOf('2026-08-20T10:11Z'); // no seconds
    reasonOf('2026-08-20T10:11:123Z');
    reasonOf('2026-08-20');
    reasonOf('2026/08/20T10:11:12Z');
    reasonOf('2026-08-20T10.11.12Z');
    reasonOf('２０２６-08-20T10:11:12Z'); // full-width digits
  });

  it('refuses surrounding whitespace', () => {
    reasonOf(' 2026-08-20T10:11:12Z');
    reasonOf('2026-08-20T10:11:12Z ');
    reasonOf('2026-08-20T10:11:12Z\n');
    reasonOf('\t2026-08-20T10:11:12Z');
    reasonOf('2026-08-20T10:11:12.5 ');
  });

  it('refuses empty and non-string input without throwing', () => {
    expect(reasonOf('')).toBe('timestamp is empty');
    for (const v of [null, undefined, 0, 1787220672500, {}, []]) {
      const r = parseTimestamp(v as string);
      expect(r.ok).toBe(false);
    }
  });
});

describe('UTC years outside 0001..9999', () => {
  it('refuses conversions that leave the 4-digit range', () => {
    // 00:30 at +01:00 on 0001-01-01 is 23:30 on 0000-12-31: year 0 is out of range
    expect(reasonOf('0001-01-01T00:30:00+01:00')).toMatch(/outside years 0001-9999/);
    // 23:30 at -01:00 on 9999-12-31 is 00:30 on 10000-01-01
    expect(reasonOf('9999-12-31T23:30:00-01:00')).toMatch(/outside years 0001-9999/);
    reasonOf('0000-06-01T00:00:00Z');
  });

  it('accepts a year-0000 text whose UTC time is in year 0001', () => {
    // 23:00 at -02:00 on 0000-12-31 is 01:00 on 0001-01-01
    expect(T('0000-12-31T23:00:00-02:00')).toBe('0001-01-01T01:00:00+00:00');
  });
});

describe('epochMs', () => {
  it('is 0 at the epoch', () => {
    expect(parse('1970-01-01T00:00:00Z').epochMs).toBe(0);
    expect(parse('1970-01-01T02:00:00+02:00').epochMs).toBe(0);
  });

  it('is 1787220672500 for 2026-08-20T10:11:12.5Z', () => {
    // Days 1970-01-01 → 2026-01-01: 56 years × 365 = 20440, plus the leap days of
    // 1972, 1976, ..., 2024 = (2024 - 1972) / 4 + 1 = 14 → 20454.
    // 2026-01-01 → 2026-08-20: Jan 31 + Feb 28 + Mar 31 + Apr 30 + May 31 + Jun 30 + Jul 31
    // = 212, plus 19 days into August → 231. Total 20685 days.
    // 20685 × 86400 = 1_787_184_000 s; 10:11:12 = 36000 + 660 + 12 = 36672 s
    // → 1_787_220_672 s → 1_787_220_672_000 ms, + 500 ms.
    expect(parse('2026-08-20T10:11:12.5Z').epochMs).toBe(1_787_220_672_500);
    expect(parse('2026-08-20T12:11:12.5+02:00').epochMs).toBe(1_787_220_672_500);
  });

  it('is 946684800000 at 2000-01-01 and truncates beyond ms', () => {
    // 30 years × 365 = 10950 + 7 leap days (1972..1996) = 10957 days × 86400 = 946_684_800 s
    expect(parse('2000-01-01T00:00:00Z').epochMs).toBe(946_684_800_000);
    expect(parse('2000-01-01T00:00:00.999999999Z').epochMs).toBe(946_684_800_999);
  });

  it('is negative before the epoch', () => {
    // one day back is -86_400_000; + 86_399_999 ms of that day → -1
    expect(parse('1969-12-31T23:59:59.999Z').epochMs).toBe(-1);
    // 0001-01-01 is 719162 days before the epoch: 0000-01-01 is 719528 days before
    // (Hinnant's 719468 from 0000-03-01 + 60 days of Jan/Feb in leap year 0), and year 0
    // has 366 days → 719528 - 366 = 719162; × 86_400_000 = 62_135_596_800_000.
    expect(parse('0001-01-01T00:00:00Z').epochMs).toBe(-62_135_596_800_000);
  });

  it('counts a leap second as the first second of the next minute', () => {
    // 2017-01-01: 47 years × 365 = 17155 + 12 leap days (1972..2016) = 17167 days
    // × 86400 = 1_483_228_800 s; 23:59:60.5 of 2016-12-31 counts as that + 0.5 s
    expect(parse('2016-12-31T23:59:60.5Z').epochMs).toBe(1_483_228_800_500);
  });
});

describe('compareTimestamps', () => {
  const cmp = (a: string, b: string): number => compareTimestamps(parse(a), parse(b));

  it('orders two instants that differ only in nanoseconds', () => {
    const a = '2026-08-20T10:11:12.000000001Z';
    const b = '2026-08-20T10:11:12.000000002Z';
    expect(parse(a).epochMs).toBe(parse(b).epochMs); // the same to the millisecond
    expect(cmp(a, b)).toBeLessThan(0);
    expect(cmp(b, a)).toBeGreaterThan(0);
    expect(cmp(a, a)).toBe(0);
  });

  it('compares instants, not text', () => {
    expect(cmp('2026-08-20T12:11:12+02:00', '2026-08-20T10:11:12Z')).toBe(0);
    expect(cmp('2026-08-20T10:11:12.5Z', '2026-08-20T10:11:12.500000000z')).toBe(0);
    expect(cmp('2026-08-20 10:11:12-00:00', '2026-08-20T10:11:12Z')).toBe(0);
    // text order says "11:..." < "12:...", but 11:00+00:00 is after 12:00+02:00 (= 10:00Z)
    expect(cmp('2026-08-20T11:00:00Z', '2026-08-20T12:00:00+02:00')).toBeGreaterThan(0);
    // across a year boundary by offset
    expect(cmp('2026-01-01T01:00:00+02:00', '2025-12-31T23:30:00Z')).toBeLessThan(0);
    expect(cmp('2025-12-31T23:59:59.999999999Z', '2026-01-01T00:00:00Z')).toBeLessThan(0);
  });

  it('sorts a leap second between :59 and the next minute', () => {
    expect(cmp('2016-12-31T23:59:59.999999999Z', '2016-12-31T23:59:60Z')).toBeLessThan(0);
    expect(cmp('2016-12-31T23:59:60.999999999Z', '2017-01-01T00:00:00Z')).toBeLessThan(0);
  });

  it('sorts an array chronologically', () => {
    const texts = [
      '2026-08-20T10:11:12.000001Z',
      '2026-08-20T12:11:11+02:00', // 10:11:11Z
      '2026-08-20T10:11:12Z',
      '2026-08-20T05:00:00-05:30', // 10:30:00Z
      '2026-08-20T10:11:12.0000005Z', // 500 ns
    ];
    const sorted = texts.map(parse).sort(compareTimestamps).map((t) => t.text);
    expect(sorted).toEqual([
      '2026-08-20T12:11:11+02:00',
      '2026-08-20T10:11:12Z',
      '2026-08-20T10:11:12.0000005Z',
      '2026-08-20T10:11:12.000001Z',
      '2026-08-20T05:00:00-05:30',
    ]);
  });
});

describe('formatLocalInstant', () => {
  it('renders milliseconds since the epoch as UTC with ms and Z', () => {
    expect(formatLocalInstant(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(formatLocalInstant(1_787_220_672_500)).toBe('2026-08-20T10:11:12.500Z'); // see epochMs above
    // 2026-11-30: 20454 days to 2026-01-01 + 304 (Jan..Oct: 31+28+31+30+31+30+31+31+30+31)
    // + 29 = 20787 days × 86400 = 1_795_996_800 s; + 8 h (28_800 s) = 1_796_025_600 s
    expect(formatLocalInstant(1_796_025_600_000)).toBe('2026-11-30T08:00:00.000Z');
    expect(formatLocalInstant(-1)).toBe('1969-12-31T23:59:59.999Z');
    expect(formatLocalInstant(946_684_800_000)).toBe('2000-01-01T00:00:00.000Z');
    // 2024-02-29T23:59:59.999Z: 2024-01-01 is 54×365 + 13 (1972..2020) = 19723 days;
    // + 31 + 28 = 59 → 19782 days = Feb 29 (the 60th day, index 59); next day minus 1 ms
    expect(formatLocalInstant(19_783 * 86_400_000 - 1)).toBe('2024-02-29T23:59:59.999Z');
  });

  it('truncates a fraction of a millisecond toward zero', () => {
    expect(formatLocalInstant(1.9)).toBe('1970-01-01T00:00:00.001Z');
    expect(formatLocalInstant(-0.5)).toBe('1970-01-01T00:00:00.000Z');
    expect(formatLocalInstant(-0)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('renders years outside 0000..9999 as ±YYYYYY, like Date#toISOString', () => {
    // 0000-01-01 is 719528 days before the epoch (see epochMs): × 86_400_000 = 62_167_219_200_000
    expect(formatLocalInstant(-62_167_219_200_000)).toBe('0000-01-01T00:00:00.000Z');
    expect(formatLocalInstant(-62_167_219_200_001)).toBe('-000001-12-31T23:59:59.999Z');
    // the largest instant a Date holds: 100_000_000 days after the epoch
    expect(formatLocalInstant(8.64e15)).toBe('+275760-09-13T00:00:00.000Z');
  });

  it('throws RangeError for instants a Date cannot hold', () => {
    expect(() => formatLocalInstant(Number.NaN)).toThrow(RangeError);
    expect(() => formatLocalInstant(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => formatLocalInstant(8.64e15 + 1)).toThrow(RangeError);
    expect(() => formatLocalInstant(-8.64e15 - 1)).toThrow(RangeError);
  });
});

describe('the real vector file', () => {
  it('renders created_at of 19-timestamps-and-payloads t1 losslessly', () => {
    const expected = '2026-11-20T09:00:00.123456789+00:00'; // 11:00 at +02:00 is 09:00Z; all 9 digits kept
    expect(T('2026-11-20T11:00:00.123456789+02:00')).toBe(expected);

    const file = new URL(
      '../../conformance/vectors/19-timestamps-and-payloads/channel/tasks/t1/order.json',
      import.meta.url,
    );
    const order = JSON.parse(readFileSync(file, 'utf8')) as { created_at: string };
    expect(order.created_at).toBe('2026-11-20T11:00:00.123456789+02:00');
    expect(T(order.created_at)).toBe(expected);
  });
});

describe('properties (cross-checked against Date only at millisecond precision)', () => {
  // A deterministic generator so failures reproduce.
  let seed = 0x2545f491;
  const rnd = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };

  it('round-trips formatLocalInstant through parseTimestamp and matches Date', () => {
    for (let k = 0; k < 2000; k++) {
      // roughly years 1900..2100 plus the edges of the 4-digit range
      const ms =
        k < 1990
          ? (rnd(200 * 366) - 70 * 366) * 86_400_000 + rnd(86_400_000)
          : [-62_135_596_800_000, 253_402_300_799_999, 0, -1, 1, 951_782_400_000, 951_868_799_999, 1_483_228_799_999, 1_483_228_800_000, 4_107_542_400_000][k - 1990]!;
      const s = formatLocalInstant(ms);
      expect(s).toBe(new Date(ms).toISOString());
      const ts = parse(s);
      expect(ts.epochMs).toBe(ms);
      expect(ts.epochMs).toBe(Date.parse(s));
      // T(x) of a Z text with a 3-digit fraction: the same text with the fraction shortened
      // per chrono (0 or 3 digits) and +00:00
      const frac = s.slice(19, 23);
      expect(rfc3339(ts)).toBe(s.slice(0, 19) + (frac === '.000' ? '' : frac) + '+00:00');
    }
  });

  it('never throws on mutated inputs, and what it accepts re-parses to the same instant', () => {
    const base = '2024-02-29T23:59:59.123456789+05:30';
    const alphabet = '0123456789-:.+TtZz  x\u0000é';
    for (let k = 0; k < 20000; k++) {
      const chars = base.split('');
      const edits = 1 + rnd(3);
      for (let e = 0; e < edits; e++) {
        const pos = rnd(chars.length + 1);
        const c = alphabet[rnd(alphabet.length)]!;
        const op = rnd(3);
        if (op === 0) chars[pos] = c;
        else if (op === 1) chars.splice(pos, 0, c);
        else chars.splice(pos, 1);
      }
      const text = chars.join('');
      const r = parseTimestamp(text);
      if (r.ok) {
        const again = parse(rfc3339(r.value));
        expect(compareTimestamps(again, r.value)).toBe(0);
        expect(rfc3339(again)).toBe(rfc3339(r.value));
        expect(again.epochMs).toBe(r.value.epochMs);
      } else {
        expect(r.reason.length).toBeGreaterThan(0);
      }
    }
  });
});
