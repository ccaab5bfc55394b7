/**
 * One webhook attempt (deliver.ts) against a receiver that never answers: it must end at its
 * timeout, also when garbage collection runs meanwhile. Node 20's AbortSignal.any() holds the
 * timeout signals it combines only weakly (nodejs/node#57736): collected before it fired, such
 * a timeout never fires, and a hanging webhook held its target's deliveries for ever (seen as a
 * flaky alerts.test.ts under CI load). GC is forced here so that this shows every time.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { postWebhook, type Attempt } from './deliver';
import type { AlertPayload } from './payload';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const servers: http.Server[] = [];
afterAll(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

const PAYLOAD: AlertPayload = {
  event: 'stale',
  channel: 'ch',
  order_id: 'o1',
  reasons: ['no_heartbeat'],
  reason: 'no heartbeat',
  since: '2026-12-02T00:00:00Z',
  url: 'http://127.0.0.1:3000/orders/o1',
  text: 'o1 is stale',
};

/** A receiver that reads each request and never answers. */
async function hanging(): Promise<URL> {
  const server = http.createServer((req) => req.resume());
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
}

describe('postWebhook against a receiver that never answers', () => {
  it('ends at its timeout, with garbage collection forced while it waits', async () => {
    const url = await hanging();
    let done: Attempt | null = null;
    void postWebhook(url, PAYLOAD, 300, new AbortController().signal, 'claimboard-test').then((a) => (done = a));
    // Bounded: 300 ms is the timeout; 10 s of collecting every 20 ms is far past it.
    const until = Date.now() + 10_000;
    while (done === null && Date.now() < until) {
      gc();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(done).toEqual({ ok: false, error: 'no answer within 0.3 s', retry: true });
  });

  it('the engine stopping ends it at once, as "stopped"', async () => {
    const url = await hanging();
    const stop = new AbortController();
    const attempt = postWebhook(url, PAYLOAD, 60_000, stop.signal, 'claimboard-test');
    setTimeout(() => stop.abort(), 100);
    expect(await attempt).toEqual({ ok: false, error: 'stopped', retry: true });
  });
});
