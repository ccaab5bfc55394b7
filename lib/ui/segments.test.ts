import { describe, expect, it } from 'vitest';
import { idSegments } from './segments';

describe('idSegments', () => {
  it('cuts a note at each whole order id', () => {
    expect(idSegments('superseded by a-wisp-offered-2 (cbops: wisp is gone); ferry still reads this order as before', ['a-wisp-offered-2'])).toEqual([
      { text: 'superseded by ' },
      { text: 'a-wisp-offered-2', id: 'a-wisp-offered-2' },
      { text: ' (cbops: wisp is gone); ferry still reads this order as before' },
    ]);
  });

  it('leaves ids inside longer names alone, takes the longest, and keeps a closing full stop outside', () => {
    expect(idSegments('a-1-2 replaces a-1. Not xa-1 nor a-1.5', ['a-1', 'a-1-2'])).toEqual([
      { text: 'a-1-2', id: 'a-1-2' },
      { text: ' replaces ' },
      { text: 'a-1', id: 'a-1' },
      { text: '. Not xa-1 nor a-1.5' },
    ]);
  });

  it('gives the text back whole with no ids to find', () => {
    expect(idSegments('nothing here', [])).toEqual([{ text: 'nothing here' }]);
    expect(idSegments('', ['a'])).toEqual([]);
  });
});
