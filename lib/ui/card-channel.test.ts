import { describe, expect, it } from 'vitest';
import { cardInChannel, channelOfCard, channelsOf, cardKey } from './card-channel';

describe("a card's channel", () => {
  it("keys a selection by channel and order id in a hub, so t1 of two channels are two cards; by order id alone otherwise", () => {
    expect(cardKey({ order_id: 't1', channel: 'v03' })).toBe('v03/t1');
    expect(cardKey({ order_id: 't1', channel: 'v09' })).toBe('v09/t1');
    expect(cardKey({ order_id: 't1' })).toBe('t1');
    expect(cardKey({ order_id: 't1', channel: '' })).toBe('t1');
  });

  it('lists the channels of a selection once each, sorted; none for cards of one channel served alone', () => {
    expect(channelsOf([{ channel: 'v11' }, { channel: 'alpha' }, { channel: 'v11' }])).toEqual(['alpha', 'v11']);
    expect(channelsOf([{}, {}])).toEqual([]);
    expect(channelOfCard({ channel: 7 })).toBeUndefined();
  });

  it('keeps the channel a dialog was opened in on the card read again', () => {
    expect(cardInChannel({ order_id: 'g1' }, 'v11')).toEqual({ order_id: 'g1', channel: 'v11' });
    expect(cardInChannel({ order_id: 'g1' }, undefined)).toEqual({ order_id: 'g1' });
  });
});
