/**
 * A card of a hub's board rendered to static markup: with several channels served it shows its
 * channel (a chip) and its links carry `?channel=` (order ids repeat across channels); with one,
 * the card is as a serve of one channel always drew it.
 */
import path from 'node:path';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { channelStateOf } from '@/lib/index/channel-state';
import type { BoardCard } from '@/lib/api/types';
import { VECTORS_DIR } from '@/test/support/vectors';
import { OrderCard } from './OrderCard';

const t1 = channelStateOf(path.join(VECTORS_DIR, '09-done/channel')).orders.find((c) => c.order_id === 't1');
const ctx = { nowMs: Date.UTC(2026, 11, 1), staleAfterMs: 300_000, lastSeenMs: () => undefined };
const render = (showChannel: boolean) => {
  if (!t1) throw new Error('vector 09 has no t1');
  return renderToStaticMarkup(createElement(OrderCard, { card: { ...t1, channel: 'v09' } as BoardCard, ctx, showChannel }));
};

describe('OrderCard in a hub', () => {
  it('with several channels: a chip naming the channel, and the link to the order of that channel', () => {
    const html = render(true);
    expect(html).toContain('href="/orders/t1?channel=v09"');
    expect(html).toMatch(/<span data-channel="v09"[^>]*>v09<\/span>/);
  });

  it('with one: no chip, and the link as a serve of one channel draws it', () => {
    const html = render(false);
    expect(html).toContain('href="/orders/t1"');
    expect(html).not.toContain('data-channel');
  });
});
