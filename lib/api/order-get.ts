import 'server-only';
import { z } from 'zod';
import { ClaimboardError } from '../errors';
import { defineEndpoint, Raw } from './endpoint';
import { OrderAnswerCache, orderJson } from '../index/read/queries';
import { serverOverlay } from '../index/read/local-overlay';
import { servedChannelOf } from '../index/store/meta';
import { indexNowMs } from '../index/steady-clock';
import type { DB } from '../index/db';
import { canonicalName, CHANNEL_NAME_RULE, isChannelName, isSafeComponent } from '../ledger/names';

/** Answers per order, each used while the index rows it was computed from are unchanged: one cache per index (order ids repeat across a hub's channels). */
const caches = new WeakMap<DB, OrderAnswerCache>();
function cacheOf(db: DB): OrderAnswerCache {
  let c = caches.get(db);
  if (!c) caches.set(db, (c = new OrderAnswerCache()));
  return c;
}

/**
 * GET /api/orders/:id (the fast path answers it too, lib/api/fast-path.ts): card, order fields,
 * timeline, runs seen, files and their problems, and the channel it is in. `?channel=<name>`
 * says which channel's order; without it the one channel served that holds the id answers, and
 * when two do, a 409 names them.
 */
export const orderGet = defineEndpoint({
  method: 'GET',
  path: '/api/orders/:id',
  request: z.object({
    id: z.string().refine(isSafeComponent, { error: (iss) => `"${String(iss.input)}" is not an order id` }),
    channel: z
      .string()
      .refine(isChannelName, { error: `not a channel name (${CHANNEL_NAME_RULE})` })
      .transform(canonicalName)
      .optional(),
  }),
  execute(ctx, { id, channel }) {
    const served = ctx.channels().list.filter((c) => c.state === 'served');
    const asked = channel === undefined ? served : served.filter((c) => c.name === channel);
    if (channel !== undefined && asked.length === 0) throw new ClaimboardError('not_found', `no channel ${channel} is served here`);
    const found: { name: string; body: string }[] = [];
    let unavailable: ClaimboardError | null = null;
    for (const c of asked) {
      let db: DB;
      try {
        db = c.db();
      } catch (e) {
        // A channel not readable yet: the order may be in another; said when it is in none.
        if (!(e instanceof ClaimboardError)) throw e;
        unavailable ??= e;
        continue;
      }
      const now = indexNowMs(db);
      const raw = orderJson(db, id, now, cacheOf(db));
      // This machine's facts, after the cache: a pid can die while the index rows stay the same.
      const body = raw !== null ? serverOverlay(servedChannelOf(db).root).orderJson(db, raw, now) : null;
      if (body !== null) found.push({ name: c.name, body });
    }
    const [one, ...more] = found;
    if (!one && unavailable) throw unavailable;
    if (!one) throw new ClaimboardError('not_found', channel === undefined && served.length === 1 ? `no order ${id} in this channel` : `no order ${id} in ${channel !== undefined ? `channel ${channel}` : 'any channel served'}`);
    if (more.length > 0) {
      throw new ClaimboardError('conflict', `order ${id} is in ${found.length} channels (${found.map((f) => f.name).join(', ')}): say which with ?channel=<name>`, { detail: { channels: found.map((f) => f.name) } });
    }
    // The channel first, then the order's answer as the index gave it.
    return Raw.bytes(Buffer.from(`{"channel":${JSON.stringify(one.name)},${one.body.slice(1)}`, 'utf8'));
  },
});
