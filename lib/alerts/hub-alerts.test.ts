/**
 * Alerts of a hub: two copies of vector 11 (g1: fang gave up, in both), `alpha` and `beta`,
 * indexed by a Hub each into its own file. Each channel's engine names its channel in the
 * payload and its text, and links with `?channel=`; the hub's follower (bin/serve-hub.ts
 * alertsOf) gives each channel an engine of its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hub, type HubOptions } from '../hub/hub';
import { nodeVerify } from '../index/disk/node-verify';
import { closeWriter, openWriter } from '../index/db';
import { AlertEngine } from './engine';
import type { AlertPayload } from './payload';
import { alertsOf } from '../../bin/serve-hub';
import { copyVectorChannel, removeFolder, tempFolder } from '../../test/support/hub';
import { until } from '../../test/support/until';

const INDEXER = { watch: false, verify: nodeVerify, workers: 0 } as const;
let t: string;
const hubs: Hub[] = [];

function hubOf(index: string, over: Partial<HubOptions> = {}): Hub {
  const hub = new Hub({
    specs: [],
    parents: [path.join(t, 'channels')],
    registryFile: path.join(t, index, 'channels.json'),
    dbFileOf: (root) => path.join(t, index, `${path.basename(root)}.sqlite`),
    staleAfterMsOf: () => 300_000,
    log: () => {},
    indexer: INDEXER,
    ...over,
  });
  hubs.push(hub);
  return hub;
}

beforeAll(() => {
  t = tempFolder('cb-hub-alerts-');
  for (const name of ['alpha', 'beta']) copyVectorChannel('11-give-up-ack-reopen', path.join(t, 'channels', name));
});

afterAll(async () => {
  for (const h of hubs) await h.stop();
  removeFolder(t);
});

const lines = (file: string): AlertPayload[] => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as AlertPayload) : []);

describe("a hub's alerts", () => {
  it('of the second channel: the payload names it, its text says it, its link carries ?channel=', async () => {
    const hub = hubOf('index');
    await hub.start(3_600_000);
    await hub.stop(); // the engine is the index's writer here, as the serve's is
    const db = openWriter(path.join(t, 'index', 'beta.sqlite'));
    const out = path.join(t, 'beta.jsonl');
    const at = Date.UTC(2026, 11, 1, 12, 0, 0);
    const engine = new AlertEngine({
      db,
      channel: path.join(t, 'channels', 'beta'),
      channelName: 'beta',
      staleAfterMs: 300_000,
      targets: [{ kind: 'command', command: `cat >> '${out}'` }],
      baseUrl: 'http://board.example',
      clock: () => at,
    });
    engine.start();
    await engine.idle();
    await engine.stop();
    closeWriter(db);
    const got = lines(out);
    expect(got.map((p) => [p.event, p.order_id])).toEqual([['attention', 'g1']]);
    // The reason is vector 11's give-up of g1 in the board's words; `since` is the engine's clock when it first saw it.
    expect(got[0]).toEqual({
      event: 'attention',
      channel: 'beta',
      order_id: 'g1',
      lane: 'attention',
      state: 'gave_up',
      flags: ['gave_up'],
      reasons: ['gave_up'],
      reason: 'fang gave up: run pruned; delivery unknown',
      since: '2026-12-01T12:00:00.000Z',
      url: 'http://board.example/orders/g1?channel=beta',
      text: ':rotating_light: claimboard (beta): order g1 needs attention — fang gave up: run pruned; delivery unknown http://board.example/orders/g1?channel=beta',
    });
  });

  it("gives each channel an engine of its own (serve's --alert-command), each message naming its channel", async () => {
    const out = path.join(t, 'both.jsonl');
    const hub = hubOf('index2', { followerOf: alertsOf({ channels: [], parents: [], port: 1, host: '127.0.0.1', rescanS: 3600, alertCommand: `cat >> '${out}'`, alertBaseUrl: 'http://b' }, () => {}) });
    await hub.start(3_600_000);
    expect(await until(() => lines(out).length >= 2, 60_000)).toBe(true);
    expect(lines(out).map((p) => `${p.channel} ${p.order_id ?? ''} ${p.url}`).sort()).toEqual(['alpha g1 http://b/orders/g1?channel=alpha', 'beta g1 http://b/orders/g1?channel=beta']);
  });
});
