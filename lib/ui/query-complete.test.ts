import { describe, expect, it } from 'vitest';
import { applyCompletion, completeAt, MAX_COMPLETIONS } from './query-complete';
import { parseQuery } from '../query/query';
import { ATTENTION_FLAGS } from '../ledger/card';

const AGENTS = ['fang', 'nebra', 'ops', 'wisp'];
/** Completions for `text` with the caret at `|` (removed). */
const at = (marked: string, explicit = false) => {
  const caret = marked.indexOf('|');
  const text = marked.replace('|', '');
  return { text, list: completeAt(text, caret, AGENTS, explicit) };
};

describe('completeAt', () => {
  it('a word with no colon: the keys it begins, with what each matches', () => {
    const { list } = at('lane:stale a|');
    expect(list?.items.map((i) => i.label)).toEqual(['agent:', 'age:']);
    expect(list?.items[0]).toEqual({ label: 'agent:', detail: 'holds it, or its double run or late result involves it', insert: 'agent:', kind: 'key' });
    expect([list?.from, list?.to]).toEqual([11, 12]);
  });

  it('an empty word offers every key only when asked', () => {
    expect(at('lane:stale |').list).toBeNull();
    expect(at('lane:stale |', true).list?.items.map((i) => i.label)).toEqual(['agent:', 'lane:', 'flag:', 'state:', 'age:', 'project:', 'holder:']);
  });

  it('key:partial offers the values: agent names, flags of the real union, lanes; the negation is kept', () => {
    expect(at('-agent:|').list?.items.map((i) => i.insert)).toEqual(['-agent:fang', '-agent:nebra', '-agent:ops', '-agent:wisp']);
    expect(at('agent:W|').list?.items.map((i) => i.label)).toEqual(['wisp']);
    expect(at('holder:n|').list?.items).toEqual([{ label: 'nebra', detail: 'holder', insert: 'holder:nebra', kind: 'value' }]);
    expect(at('flag:|').list?.items).toHaveLength(Math.min(ATTENTION_FLAGS.length, MAX_COMPLETIONS));
    expect(at('flag:no|').list?.items.map((i) => [i.label, i.detail])).toEqual([['no_worker_left', 'no worker left']]);
    expect(at('lane:s|').list?.items.map((i) => [i.label, i.detail])).toEqual([['stale', 'Stale']]);
    expect(at('age:>|').list?.items.map((i) => i.label)).toEqual(['>10m', '>1h', '>1d']);
  });

  it('channel: is offered, and its values are the channels, only where several channels are served', () => {
    const hub = (marked: string, explicit = false) => completeAt(marked.replace('|', ''), marked.indexOf('|'), AGENTS, explicit, ['alpha', 'v01', 'v11']);
    expect(hub('ch|')?.items).toEqual([{ label: 'channel:', detail: 'the channel it is in (a hub serves several)', insert: 'channel:', kind: 'key' }]);
    expect(hub('|', true)?.items.map((i) => i.label)).toEqual(['agent:', 'lane:', 'flag:', 'state:', 'age:', 'project:', 'holder:', 'channel:']);
    expect(hub('-channel:v|')?.items.map((i) => i.insert)).toEqual(['-channel:v01', '-channel:v11']);
    expect(hub('channel:A|')?.items).toEqual([{ label: 'alpha', detail: 'channel', insert: 'channel:alpha', kind: 'value' }]);
    expect(at('ch|').list).toBeNull();
    expect(at('channel:|').list).toBeNull();
  });

  it('completes the word the caret is in, from its start to its end', () => {
    const { list } = at('fl|ag:x lane:done');
    expect([list?.from, list?.to, list?.items.map((i) => i.label)]).toEqual([0, 6, ['flag:']]);
  });

  it('offers nothing inside quotes, for an unknown key, a project, or when nothing matches', () => {
    expect(at('"agent:f|').list).toBeNull();
    expect(at('"two words" x "ag|').list).toBeNull();
    expect(at('colour:|').list).toBeNull();
    expect(at('project:|').list).toBeNull();
    expect(at('agent:zz|').list).toBeNull();
    expect(at('build|').list).toBeNull();
    // After a closed quote, completion works again.
    expect(at('"two words" ag|').list?.items.map((i) => i.label)).toEqual(['agent:', 'age:']);
  });
});

describe('applyCompletion', () => {
  it('a key: replaces the word, the caret right after the colon (values come next)', () => {
    const { text, list } = at('lane:stale -ag|');
    const item = list?.items.find((i) => i.label === 'agent:');
    expect(item && list && applyCompletion(text, list, item)).toEqual({ text: 'lane:stale -agent:', caret: 18 });
  });

  it('a value: the whole term and one space; the result parses', () => {
    const { text, list } = at('lane:stale -agent:f|');
    const item = list?.items[0];
    const out = item && list ? applyCompletion(text, list, item) : null;
    expect(out).toEqual({ text: 'lane:stale -agent:fang ', caret: 23 });
    expect(parseQuery(out?.text ?? '')).toMatchObject({ ok: true, terms: [{ kind: 'lane' }, { kind: 'agent', neg: true, value: 'fang' }] });
  });

  it('a value in the middle of a word: the prefix before the caret matches, the whole word is replaced, no second space', () => {
    const m = at('agent:w|xyz lane:done');
    const item = m.list?.items[0];
    expect(item?.label).toBe('wisp');
    expect(item && m.list ? applyCompletion(m.text, m.list, item) : null).toEqual({ text: 'agent:wisp lane:done', caret: 11 });
  });
});
