/**
 * What a `changed` event of the live stream invalidates: the board, and the order it names in
 * its channel (order ids repeat across a hub's channels), not the same id in another channel.
 */
import { describe, expect, it } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import { invalidateChanged } from './live';
import { queryKeys } from './query-keys';

function client(): QueryClient {
  const qc = new QueryClient();
  for (const key of [queryKeys.order('t1', 'v03'), queryKeys.order('t1', 'v09'), queryKeys.order('t1'), queryKeys.order('t2', 'v09'), queryKeys.boardAll()]) qc.setQueryData(key, { any: 1 });
  return qc;
}
const invalidated = (qc: QueryClient) =>
  qc
    .getQueryCache()
    .getAll()
    .filter((q) => q.state.isInvalidated)
    .map((q) => q.queryKey.join('/'))
    .sort();

describe('invalidateChanged', () => {
  it("invalidates the board and the named order of the event's channel (and the one asked without a channel), not the same id in another channel", () => {
    const qc = client();
    invalidateChanged(qc, { channel: 'v09', orders: ['t1'], all: false });
    expect(invalidated(qc)).toEqual(['board', 'order/t1', 'order/t1/v09']);
  });

  it('invalidates the id in every channel when the event names none (a serve that does not say it)', () => {
    const qc = client();
    invalidateChanged(qc, { orders: ['t1'], all: false });
    expect(invalidated(qc)).toEqual(['board', 'order/t1', 'order/t1/v03', 'order/t1/v09']);
  });

  it('invalidates everything on `all`', () => {
    const qc = client();
    invalidateChanged(qc, { channel: 'v03', orders: [], all: true });
    expect(invalidated(qc)).toEqual(['board', 'order/t1', 'order/t1/v03', 'order/t1/v09', 'order/t2/v09']);
  });
});
