import { describe, expect, it } from 'vitest';
import { LANES } from '../ledger/derive';
import { ATTENTION_FLAGS, ORDER_STATES } from '../ledger/card';
import { channelAllowed, groupQuery, historyQueryOf, laneAllowed, parseQuery, printQuery, queryOfParams, shortcutValue, withShortcut, type QueryTerm } from './query';

const terms = (text: string): readonly QueryTerm[] => {
  const p = parseQuery(text);
  if (!p.ok) throw new Error(`${text}: ${p.reason} at ${p.at}`);
  return p.terms;
};
const failure = (text: string) => {
  const p = parseQuery(text);
  if (p.ok) throw new Error(`${text} parsed: ${JSON.stringify(p.terms)}`);
  return p;
};

describe('parseQuery', () => {
  it("reads the issue's example: every key, free text and a negation", () => {
    expect(terms('agent:fang lane:stale flag:double_run state:claimed age:>1h project:atlas holder:wisp build -agent:ghost')).toEqual([
      { kind: 'agent', neg: false, value: 'fang' },
      { kind: 'lane', neg: false, value: 'stale' },
      { kind: 'flag', neg: false, value: 'double_run' },
      { kind: 'state', neg: false, value: 'claimed' },
      { kind: 'age', neg: false, op: '>', amount: 1, unit: 'h' },
      { kind: 'project', neg: false, value: 'atlas' },
      { kind: 'holder', neg: false, value: 'wisp' },
      { kind: 'text', neg: false, value: 'build' },
      { kind: 'agent', neg: true, value: 'ghost' },
    ]);
  });

  it('an empty or blank query has no terms', () => {
    expect(terms('')).toEqual([]);
    expect(terms('   \t ')).toEqual([]);
  });

  it('folds case: keys, names (canonical), lanes, flags, states, projects; free text keeps its case', () => {
    expect(terms('Agent:Fang LANE:Stale flag:Double_Run State:CLAIMED project:Atlas Build')).toEqual([
      { kind: 'agent', neg: false, value: 'fang' },
      { kind: 'lane', neg: false, value: 'stale' },
      { kind: 'flag', neg: false, value: 'double_run' },
      { kind: 'state', neg: false, value: 'claimed' },
      { kind: 'project', neg: false, value: 'atlas' },
      { kind: 'text', neg: false, value: 'Build' },
    ]);
  });

  it('quoted values and free text keep spaces, colons, escaped quotes and backslashes', () => {
    expect(terms('"run pruned" project:"big data" -"a:b" "say \\"hi\\" \\\\ ok"')).toEqual([
      { kind: 'text', neg: false, value: 'run pruned' },
      { kind: 'project', neg: false, value: 'big data' },
      { kind: 'text', neg: true, value: 'a:b' },
      { kind: 'text', neg: false, value: 'say "hi" \\ ok' },
    ]);
    // A backslash before anything else is itself; outside quotes it is an ordinary character.
    expect(terms('"a\\b" c\\d')).toEqual([
      { kind: 'text', neg: false, value: 'a\\b' },
      { kind: 'text', neg: false, value: 'c\\d' },
    ]);
  });

  it('ages: both comparisons, every unit, decimals; negation kept', () => {
    expect(terms('age:>90s age:<10m age:>1.5h -age:<2d age:>3H')).toEqual([
      { kind: 'age', neg: false, op: '>', amount: 90, unit: 's' },
      { kind: 'age', neg: false, op: '<', amount: 10, unit: 'm' },
      { kind: 'age', neg: false, op: '>', amount: 1.5, unit: 'h' },
      { kind: 'age', neg: true, op: '<', amount: 2, unit: 'd' },
      { kind: 'age', neg: false, op: '>', amount: 3, unit: 'h' },
    ]);
  });

  it('words that only look like keys are free text: a hyphen inside, digits before the colon, a lone colon', () => {
    expect(terms('ichabod-1650 10:30 :x a-b:c').map((t) => [t.kind, t.neg, 'value' in t ? t.value : ''])).toEqual([
      ['text', false, 'ichabod-1650'],
      ['text', false, '10:30'],
      ['text', false, ':x'],
      ['text', false, 'a-b:c'],
    ]);
  });

  it.each([
    ['foo:bar', 0, /^unknown key "foo:"; the keys are agent, lane, flag, state, age, project, holder/],
    ['lane:stale colour:red', 11, /^unknown key "colour:"/],
    ['agent:', 6, /^agent: needs a value, e\.g\. agent:fang$/],
    ['agent:"fa ng"', 6, /^agent: "fa ng" is not an agent name/],
    ['lane:stal', 5, /^lane: "stal" is not a lane; the lanes are attention, stale, running, review, queue, done$/],
    ['flag:dbl', 5, /^flag: "dbl" is not a flag; the flags are gave_up, .*no_worker_left, dead_run_held$/],
    ['state:running', 6, /^state: "running" is not a state/],
    ['age:1h', 4, /^age: say older or newer than how long: age:>1h \(older\) or age:<1h \(newer\)$/],
    ['age:5y', 4, /^age: write > \(older\) or < \(newer\) and a duration, e\.g\. age:>1h or age:<10m$/],
    ['age:>5y', 4, /^age: "y" is not a unit; the units are s, m, h and d \(seconds, minutes, hours, days\)$/],
    ['age:>5', 4, /^age: "5" has no unit; add s, m, h or d/],
    ['age:>h', 4, /^age: "h" is not a duration/],
    ['age:>=1h', 4, /^age: use > or < alone/],
    ['age:>1h2m', 4, /^age: "1h2m" is not a duration/],
    ['x - y', 2, /^a "-" must come right before the term it negates/],
    ['x -', 2, /^a "-" must come right before/],
    ['"open', 0, /^a quote is not closed/],
    ['agent:"fang', 6, /^a quote is not closed/],
    ['ab"c', 2, /^a quote inside a word/],
    ['"a"b', 3, /^put a space after the closing quote$/],
    ['""', 0, /^empty quotes/],
  ])('%s: a reason in words at character %i', (text, at, reason) => {
    const f = failure(text);
    expect(f.reason).toMatch(reason);
    expect(f.at).toBe(at);
  });

  it('bounds the length and the number of terms', () => {
    expect(failure('x'.repeat(501)).reason).toBe('the query is longer than 500 characters');
    expect(terms(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '))).toHaveLength(40);
    const many = Array.from({ length: 41 }, (_, i) => `w${i}`).join(' ');
    expect(failure(many)).toMatchObject({ reason: 'more than 40 terms', at: many.indexOf('w40') });
  });

  it('accepts every lane, flag and state of the real unions', () => {
    for (const l of LANES) expect(terms(`lane:${l}`)).toEqual([{ kind: 'lane', neg: false, value: l }]);
    for (const f of ATTENTION_FLAGS) expect(terms(`-flag:${f}`)).toEqual([{ kind: 'flag', neg: true, value: f }]);
    for (const s of ORDER_STATES) expect(terms(`state:${s}`)).toEqual([{ kind: 'state', neg: false, value: s }]);
    expect(ATTENTION_FLAGS).toContain('no_worker_left');
  });
});

describe('printQuery', () => {
  it('prints the canonical form: lowercase keys, canonical values, quotes only where needed, one space apart', () => {
    expect(printQuery(terms('  Agent:Fang   -LANE:done "two words" age:>1.50h  project:"atlas"  '))).toBe('agent:fang -lane:done "two words" age:>1.5h project:atlas');
    expect(printQuery(terms('"-x" "a:b" "10:30" "say \\"hi\\""'))).toBe('"-x" "a:b" 10:30 "say \\"hi\\""');
  });

  it('round trip: printing and parsing again gives the same terms, and printing that the same text', () => {
    const texts = [
      'agent:fang lane:stale flag:double_run state:claimed age:>1h project:atlas',
      '-agent:ghost -"a b" -age:<10m holder:wisp',
      'project:"with space" "quote \\" and \\\\ slash" c\\d',
      '"-neg-looking" "key:looking" plain ichabod-1650',
      'age:>0.5s age:<2d',
      '',
    ];
    for (const t of texts) {
      const once = terms(t);
      const printed = printQuery(once);
      expect(terms(printed), t).toEqual(once);
      expect(printQuery(terms(printed)), t).toBe(printed);
    }
  });
});

describe('groupQuery', () => {
  it('same key ORs (a list), negations exclude (their own list), duplicates once; free text lowercased', () => {
    const g = groupQuery(terms('agent:fang agent:wisp agent:fang -agent:ghost lane:stale -lane:done Build -Noise flag:gave_up'));
    expect(g.agent).toEqual({ in: ['fang', 'wisp'], out: ['ghost'] });
    expect(g.lane).toEqual({ in: ['stale'], out: ['done'] });
    expect(g.text).toEqual({ in: ['build'], out: ['noise'] });
    expect(g.flag).toEqual({ in: ['gave_up'], out: [] });
    expect(g.state).toEqual({ in: [], out: [] });
    expect(g.age).toEqual({ min: null, max: null });
  });

  it('ages AND into the tightest range; a negation flips the comparison and admits the bound itself', () => {
    expect(groupQuery(terms('age:>1h age:>90m age:<1d age:<2d')).age).toEqual({ min: { ms: 5_400_000, strict: true }, max: { ms: 86_400_000, strict: true } });
    expect(groupQuery(terms('-age:>1h')).age).toEqual({ min: null, max: { ms: 3_600_000, strict: false } });
    expect(groupQuery(terms('-age:<10s')).age).toEqual({ min: { ms: 10_000, strict: false }, max: null });
    // At the same bound the strict one is the tighter.
    expect(groupQuery(terms('-age:<60s age:>1m')).age.min).toEqual({ ms: 60_000, strict: true });
  });

  it('laneAllowed: a lane term names the lanes, a negated one takes a lane away', () => {
    const g = groupQuery(terms('lane:stale lane:attention -lane:attention'));
    expect(LANES.filter((l) => laneAllowed(g, l))).toEqual(['stale']);
    expect(LANES.filter((l) => laneAllowed(groupQuery(terms('-lane:done')), l))).toEqual(['attention', 'stale', 'running', 'review', 'queue']);
  });
});

describe('channel: (a hub\'s channels)', () => {
  it('reads a channel name in its canonical form, prints it back, and refuses what is not a channel name', () => {
    expect(terms('channel:Atlas -channel:v09')).toEqual([
      { kind: 'channel', neg: false, value: 'atlas' },
      { kind: 'channel', neg: true, value: 'v09' },
    ]);
    expect(printQuery(terms('CHANNEL:Atlas  -channel:v09 t1'))).toBe('channel:atlas -channel:v09 t1');
    expect(failure('lane:queue channel:"two words"')).toEqual({ ok: false, reason: 'channel: "two words" is not a channel name (letters, digits, ".", "-" and "_" only)', at: 19 });
    expect(failure('channel:')).toEqual({ ok: false, reason: 'channel: needs a value, e.g. channel:atlas', at: 8 });
  });

  it('selects channels: any of those named, none of those negated, every one when none is named', () => {
    const g = (text: string) => groupQuery(terms(text));
    expect(g('channel:a channel:b -channel:b').channel).toEqual({ in: ['a', 'b'], out: ['b'] });
    expect(['a', 'b', 'c'].filter((c) => channelAllowed(g('channel:a channel:b -channel:b'), c))).toEqual(['a']);
    expect(['a', 'b', 'c'].filter((c) => channelAllowed(g('-channel:c agent:fang'), c))).toEqual(['a', 'b']);
    expect(['a', 'b', 'c'].filter((c) => channelAllowed(g('agent:fang'), c))).toEqual(['a', 'b', 'c']);
  });

  it('is refused by the history, which is of one channel', () => {
    expect(historyQueryOf({ q: 'fang channel:a' })).toEqual({ ok: false, reason: "channel: the history is of one channel (a hub's history by channel is not there yet)", at: 5 });
  });
});

describe('queryOfParams', () => {
  it('the old ?agent=&state=&flag= parameters become terms after those of q', () => {
    const p = queryOfParams({ q: 'build', agent: 'Fang', state: 'blocked', flag: 'no_worker_left' });
    expect(p.ok && printQuery(p.terms)).toBe('build agent:fang state:blocked flag:no_worker_left');
    expect(queryOfParams({})).toEqual({ ok: true, terms: [] });
  });

  it('a bad alias or q is a failure naming it', () => {
    expect(queryOfParams({ state: 'running' })).toMatchObject({ ok: false, reason: expect.stringMatching(/^state parameter: state: "running" is not a state/) });
    expect(queryOfParams({ q: 'lane:x', agent: 'fang' })).toMatchObject({ ok: false, at: 5 });
  });
});

describe('dropdown shortcuts', () => {
  it('shortcutValue: the one positive value, empty for none, null for several; negations do not count', () => {
    expect(shortcutValue(terms('state:blocked -agent:ghost'), 'state')).toBe('blocked');
    expect(shortcutValue(terms('-agent:ghost'), 'agent')).toBe('');
    expect(shortcutValue(terms('agent:fang agent:wisp'), 'agent')).toBeNull();
    expect(shortcutValue(terms('agent:fang agent:fang'), 'agent')).toBe('fang');
  });

  it('withShortcut replaces the positive terms of its kind in place, drops a negation of the value, keeps the rest', () => {
    const q = terms('build agent:fang lane:stale agent:wisp -agent:nebra');
    expect(printQuery(withShortcut(q, 'agent', 'nebra'))).toBe('build agent:nebra lane:stale');
    expect(printQuery(withShortcut(q, 'agent', ''))).toBe('build lane:stale -agent:nebra');
    expect(printQuery(withShortcut(q, 'state', 'claimed'))).toBe('build agent:fang lane:stale agent:wisp -agent:nebra state:claimed');
    expect(printQuery(withShortcut(terms('-flag:gave_up'), 'flag', 'gave_up'))).toBe('flag:gave_up');
    expect(() => withShortcut(q, 'lane', 'nowhere')).toThrow(/not a lane/);
  });

  it("the channel picker reads and writes the query's channel: term, the rest of the query kept", () => {
    const q = terms('lane:stale channel:alpha agent:fang');
    expect(shortcutValue(q, 'channel')).toBe('alpha');
    expect(printQuery(withShortcut(q, 'channel', 'v11'))).toBe('lane:stale channel:v11 agent:fang');
    expect(printQuery(withShortcut(q, 'channel', ''))).toBe('lane:stale agent:fang');
    expect(printQuery(withShortcut(terms('-channel:v01'), 'channel', 'v01'))).toBe('channel:v01');
    expect(shortcutValue(terms('channel:a channel:b'), 'channel')).toBeNull();
  });
});
