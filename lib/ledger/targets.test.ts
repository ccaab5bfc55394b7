import { describe, expect, it } from 'vitest';
import { decisionTarget, joinTargets, namesTarget, parseDecisionTarget, targetList, type DecisionTarget } from './targets';

const DIGEST = 'dc2bb0a1'.repeat(8);

describe('decision targets', () => {
  it('builds each kind as docs/channel-format.md writes it, and reads it back', () => {
    const cases: [DecisionTarget, string][] = [
      [{ kind: 'result', revision: 3 }, 'result:3'],
      [{ kind: 'review', revision: 2 }, 'review:2'],
      [{ kind: 'giveup', digest: DIGEST }, `giveup:${DIGEST}`],
      [{ kind: 'late', revision: 1, agents: ['wisp'], holder: null, twice: false }, 'late:1:wisp:open'],
      [{ kind: 'late', revision: 2, agents: ['fang', 'wisp'], holder: 'nebra', twice: false }, 'late:2:fang,wisp:held:nebra'],
      [{ kind: 'late', revision: 1, agents: ['wisp'], holder: 'fang', twice: true }, 'late:1:wisp:twice:fang'],
    ];
    for (const [t, text] of cases) {
      expect(decisionTarget(t)).toBe(text);
      expect(parseDecisionTarget(text)).toEqual(t);
    }
  });

  it('sorts a late target\'s agents, so the same late results make the same target', () => {
    expect(decisionTarget({ kind: 'late', revision: 4, agents: ['wisp', 'fang', 'ka.ro'], holder: null, twice: false })).toBe('late:4:fang,ka.ro,wisp:open');
  });

  it('reads case and spacing aside, and returns null for a form it does not know', () => {
    expect(parseDecisionTarget('  RESULT:7 ')).toEqual({ kind: 'result', revision: 7 });
    for (const bad of ['', 'result:', 'result:x', 'result:1:2', 'review:-1', 'giveup:', 'giveup:a:b', 'late:1:wisp', 'late:1:wisp:held', 'late:1:wisp:open:fang', 'late:x:wisp:open', 'late:1::open', 'late:1:wisp:gone:fang', 'reopen:1', 'result:1 result:2']) {
      expect([bad, parseDecisionTarget(bad)]).toEqual([bad, null]);
    }
  });
});

describe('target lists', () => {
  it('compares a record\'s targets case and spacing aside, each one whole', () => {
    expect(targetList('  giveup:AB   late:1:wisp:open ')).toBe('giveup:ab late:1:wisp:open');
    expect(namesTarget('giveup:AB  late:1:wisp:open', 'late:1:wisp:open')).toBe(true);
    expect(namesTarget('giveup:ab late:1:wisp:open', 'giveup:a')).toBe(false);
  });

  it('joins new targets after the ones an operator\'s file names, each once', () => {
    expect(joinTargets('giveup:ab', ['LATE:1:wisp:open', 'giveup:ab', null, undefined])).toBe('giveup:ab late:1:wisp:open');
    expect(joinTargets(undefined, ['result:1'])).toBe('result:1');
  });
});
