import 'server-only';
/**
 * GET /api/events: server-sent events. The one endpoint whose body is a stream (Raw.stream):
 * it stays open and is fed from the index's change feed, so only Next.js's adapter answers it;
 * the read token and the request are checked by the executor as for every other endpoint.
 */
import { z } from 'zod';
import { defineEndpoint, Raw } from './endpoint';
import { settings } from '../config';
import { healthChanges } from '../index/health';
import { changesSince, latestSeq } from '../index/read/queries';

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
 * `event: changed` with a ChangedEvent whenever the indexer records changed orders (polled from
 * the index's change feed every 150 ms), and one naming no order (`orders: []`, `all: false`:
 * the board refetches) when the index's health changes (lib/index/health.ts healthChanges: the
 * header's banner).
 */
export const eventsGet = defineEndpoint({
  method: 'GET',
  path: '/api/events',
  request: z.object({}),
  execute(ctx) {
    const db = ctx.db();
    const signal = ctx.request?.signal;
    const enc = new TextEncoder();
    let seq = latestSeq(db);
    let timer: ReturnType<typeof setInterval> | null = null;
    let lastSent = Date.now();
    let ended: (() => void) | null = null;
    const dbFile = settings.dbFile();
    const healthMoved = dbFile ? healthChanges(dbFile) : () => false;
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
        send(`retry: 1000\nevent: hello\ndata: ${JSON.stringify({ seq })}\n\n`);
        timer = setInterval(() => {
          try {
            const ev = changesSince(db, seq);
            if (ev) {
              seq = ev.seq;
              send(`event: changed\ndata: ${JSON.stringify(ev)}\n\n`);
            }
            if (healthMoved()) send(`event: changed\ndata: ${JSON.stringify({ seq, orders: [], all: false })}\n\n`);
            else if (!ev && Date.now() - lastSent > KEEPALIVE_MS) send(': keepalive\n\n');
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
