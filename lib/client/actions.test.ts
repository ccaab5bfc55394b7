import { describe, expect, it } from 'vitest';
import type { Card } from '@/lib/ledger/derive';
import { servedChannelOf } from './actions';

const card = (extra: object = {}) => ({ order_id: 'g1', ...extra }) as unknown as Card;

describe('the channel an act is sent to (`?channel=` in a hub)', () => {
  it("an act on a card: the card's channel; a retire: its identity's; none with one channel served", () => {
    expect(servedChannelOf({ action: 'ack', card: card({ channel: 'v11' }), note: '' })).toBe('v11');
    expect(servedChannelOf({ action: 'ack', card: card(), note: '' })).toBeUndefined();
    expect(servedChannelOf({ action: 'retire', agent: 'fang', orders: [], reason: 'r', confirmAlive: 0, channel: 'v17' })).toBe('v17');
    expect(servedChannelOf({ action: 'retire', agent: 'fang', orders: [], reason: 'r', confirmAlive: 0 })).toBeUndefined();
  });
});
