import 'server-only';
/**
 * GET /api/events: server-sent events. The one endpoint whose body is a stream (Raw.stream):
 * it stays open and is fed from the index's change feed, so only Next.js's adapter answers it;
 * the read token and the request are checked by the executor as for every other endpoint.
 */
import { z } from 'zod';
import { defineEndpoint, Raw } from './endpoint';
import { ChangeFeed } from './change-feed';
import { servedChannels } from './channels';

const POLL_MS = 150;
const KEEPALIVE_MS = 15_000;

/**
 * The open streams' stops. On SIGTERM or SIGINT every stream is ended, so that the web
 * server's graceful stop (bin/web.ts), which waits for every open response, is not held by a tab
 * left open. A tab that asks again afterwards is answered 204 by bin/web.ts, before this module.
 */
const open = new Set<() => void>();
const endAll = () => {
  for (const stop of [...open]) stop();
};
process.once('SIGTERM', endAll);
process.once('SIGINT', endAll);

/**
 * `event: changed` with a HubChangedEvent (the channel and its changed orders) whenever a
 * channel's indexer records changed orders (each channel's change feed polled every 150 ms:
 * change-feed.ts), and one naming no order (`orders: []`, `all: false`: the board refetches)
 * when a channel's index health changes (the header's banner) or a channel comes or goes.
 * `hello` says where the stream starts: `{seq}` for one channel, `{cursor: {channel: seq}}` for
 * several.
 */
export const eventsGet = defineEndpoint({
  method: 'GET',
  path: '/api/events',
  request: z.object({}),
  execute(ctx) {
    const first = ctx.channels();
    // One channel (served alone, or a registry of one) answers as it always has: a 503 when its index cannot be opened, `hello` with its seq.
    const one = first.list.length === 1;
    if (one) for (const c of first.list) c.db();
    // A hub's registry is read again at each poll (channels come and go); one channel stays the one.
    let list = first.list;
    const feed = new ChangeFeed(() => {
      if (first.id === 'one') return list;
      try {
        list = servedChannels(() => ctx.db(), () => null).list;
      } catch {
        /* a registry being replaced: the last one read */
      }
      return list;
    });
    feed.poll();
    const cursor = feed.cursor();
    const hello = one ? { seq: Object.values(cursor)[0] ?? 0 } : { cursor };
    const signal = ctx.request?.signal;
    const enc = new TextEncoder();
    let timer: ReturnType<typeof setInterval> | null = null;
    let lastSent = Date.now();
    let ended: (() => void) | null = null;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const send = (s: string) => {
          try {
            controller.enqueue(enc.encode(s));
            lastSent = Date.now();
          } catch {
            stop();
          }
        };
        const stop = () => {
          open.delete(stop);
          if (timer) clearInterval(timer);
          timer = null;
          try {
            controller.close();
          } catch {
            /* already closed */
          }
        };
        send(`retry: 1000\nevent: hello\ndata: ${JSON.stringify(hello)}\n\n`);
        timer = setInterval(() => {
          try {
            const events = feed.poll();
            for (const ev of events) send(`event: changed\ndata: ${JSON.stringify(ev)}\n\n`);
            if (events.length === 0 && Date.now() - lastSent > KEEPALIVE_MS) send(': keepalive\n\n');
          } catch {
            stop();
          }
        }, POLL_MS);
        signal?.addEventListener('abort', stop);
        open.add(stop);
        ended = stop;
      },
      cancel() {
        if (ended) open.delete(ended);
        if (timer) clearInterval(timer);
        timer = null;
      },
    });
    return Raw.stream(stream, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  },
});
