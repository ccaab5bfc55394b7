/**
 * Acts in a hub: two copies of vector 11 (the same order ids, g1 gave up in both), `alpha` and
 * `beta`, indexed by a Hub each into its own file and read through the registry. beta's roster
 * does not list ops. An act names its channel (`?channel=`); it is written only under that
 * channel's folder, checked against that channel's roster; a bulk request whose actions span
 * channels is refused whole, and an act that names no channel in a serve of several is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hub } from '../hub/hub';
import { nodeVerify } from '../index/disk/node-verify';
import { deriveSubset } from '../actions/apply';
import { ledgerPrevOf } from '../actions/write';
import { operatorsOf } from '../hub/args';
import { buildAction, type ActionRequest } from '../ledger/actions';
import { naclSign } from '../ledger/nacl-verify';
import { runEndpoint, type Endpoint } from './endpoint';
import { actionPost, bulkPost, operatorGet } from './acts';
import type { Answer } from './answer';
import { copyVectorChannel, removeFolder, tempFolder } from '../../test/support/hub';
import { folderSnapshot } from '../../test/support/folder';
import { until } from '../../test/support/until';
import { listenForNudges } from '../index/nudge';
import { nameChannel } from '../../test/support/channel';
import { vectorKeys } from '../../test/support/vectors';

const INDEXER = { watch: false, verify: nodeVerify, workers: 0 } as const;
const OPS_SEED = (vectorKeys() as Record<string, { seed: string }>).ops?.seed ?? '';
const IDS = { alpha: 'alpha-channel-0001', beta: 'beta-channel-0002' } as const;

let t: string;
let hub: Hub;
const roots = { alpha: '', beta: '' };
/** ops's acknowledgement of g1 in each channel, signed before any act (the refusals below are refused before the folder is read). */
let acks: Record<'alpha' | 'beta', ActionRequest>;
const saved = { hub: process.env.CLAIMBOARD_HUB, db: process.env.CLAIMBOARD_DB, ro: process.env.CLAIMBOARD_READ_ONLY };

beforeAll(async () => {
  t = tempFolder('cb-hub-acts-');
  const parent = path.join(t, 'channels');
  for (const name of ['alpha', 'beta'] as const) {
    roots[name] = copyVectorChannel('11-give-up-ack-reopen', path.join(parent, name));
    nameChannel(roots[name], IDS[name]);
  }
  fs.rmSync(path.join(roots.beta, 'agents', 'ops.json'));
  hub = new Hub({
    specs: [],
    parents: [parent],
    registryFile: path.join(t, 'index', 'channels.json'),
    dbFileOf: (root) => path.join(t, 'index', `${path.basename(root)}.sqlite`),
    staleAfterMsOf: () => 300_000,
    log: () => {},
    indexer: INDEXER,
  });
  await hub.start(3_600_000);
  acks = { alpha: ackG1(roots.alpha, IDS.alpha), beta: ackG1(roots.beta, IDS.beta) };
  process.env.CLAIMBOARD_HUB = path.join(t, 'index', 'channels.json');
  delete process.env.CLAIMBOARD_DB;
  delete process.env.CLAIMBOARD_READ_ONLY;
});

afterAll(async () => {
  await hub.stop();
  for (const [k, v] of [['CLAIMBOARD_HUB', saved.hub], ['CLAIMBOARD_DB', saved.db], ['CLAIMBOARD_READ_ONLY', saved.ro]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  removeFolder(t);
});

/** ops's acknowledgement of g1's give-up in the channel at `root` as it is now, signed for `channel`. */
function ackG1(root: string, channel: string): ActionRequest {
  const state = deriveSubset({ root, nowMs: Date.now(), staleAfterMs: 300_000, operators: [], verify: nodeVerify }, ['g1']);
  const card = state.views.get('g1')?.card;
  if (!card) throw new Error('no g1');
  return buildAction({ action: 'ack', card, note: 'seen' }, 'ops', (p) => naclSign(OPS_SEED, p), '2026-11-30T12:00:00Z', ledgerPrevOf(path.join(root, 'ledger.ops.jsonl')).prev, channel);
}

async function post(endpoint: Endpoint<unknown>, url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const request = new Request(`http://localhost${url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const a = (await runEndpoint(endpoint, { url, header: (n) => request.headers.get(n), params: {}, request })) as Answer;
  return { status: a.status, body: JSON.parse(a.body.toString('utf8')) as Record<string, unknown> };
}

describe("a hub's acts", () => {
  it("write only under the named channel's folder; the other channel's folder stays byte-identical; the nudges name the channel", async () => {
    const beta = folderSnapshot(roots.beta);
    const alpha = folderSnapshot(roots.alpha);
    const sock = path.join(t, 'nudge.sock');
    const nudged: string[] = [];
    const stop = await listenForNudges(sock, (rel, channel) => nudged.push(`${channel ?? '-'} ${rel}`));
    process.env.CLAIMBOARD_NUDGE_SOCKET = sock;
    const res = await post(actionPost, '/api/actions?channel=alpha', acks.alpha).finally(() => delete process.env.CLAIMBOARD_NUDGE_SOCKET);
    try {
      const n = (res.body.written as string[] | undefined)?.length ?? 1;
      expect(await until(() => nudged.length >= n, 10_000)).toBe(true);
    } finally {
      stop();
    }
    expect(res.status).toBe(201);
    const written = res.body.written as string[];
    expect(written.length).toBeGreaterThan(0);
    expect(nudged.sort()).toEqual(written.map((w) => `alpha ${w}`).sort());
    expect(written.every((w) => fs.existsSync(path.join(roots.alpha, w)) && !fs.existsSync(path.join(roots.beta, w)))).toBe(true);
    expect(folderSnapshot(roots.beta)).toEqual(beta);
    // alpha gained exactly the files written (and their folders), nothing else moved.
    const after = folderSnapshot(roots.alpha);
    expect(Object.keys(after).filter((k) => !(k in alpha)).filter((k) => after[k] !== 'dir').sort()).toEqual([...written].sort());
  });

  it("refuses an operator of alpha in beta, whose roster does not list the key, writing nothing", async () => {
    const beta = folderSnapshot(roots.beta);
    const res = await post(actionPost, '/api/actions?channel=beta', acks.beta);
    expect(res).toEqual({ status: 403, body: { error: 'forbidden', reason_code: 'bad_signature', message: "the ack record's signature: unknown signer (signed_by ops)" } });
    expect(folderSnapshot(roots.beta)).toEqual(beta);
    const info = runEndpoint(operatorGet, { url: '/api/operators/ops?channel=beta', header: () => null, params: { name: 'ops' } }) as Answer;
    expect((JSON.parse(info.body.toString('utf8')) as Record<string, unknown>).in_roster).toBe(false);
  });

  it('refuses an act that names no channel, or one not served, with a typed reason', async () => {
    const beta = folderSnapshot(roots.beta);
    const alpha = folderSnapshot(roots.alpha);
    expect(await post(actionPost, '/api/actions', acks.alpha)).toEqual({
      status: 400,
      body: { error: 'bad_request', reason_code: 'which_channel', message: '2 channels are served here (alpha, beta): an act says which with ?channel=<name>', channels: ['alpha', 'beta'] },
    });
    // The page asks about an operator the same way: told which channels there are, it asks each (the key panel).
    const info = runEndpoint(operatorGet, { url: '/api/operators/ops', header: () => null, params: { name: 'ops' } }) as Answer;
    expect([info.status, (JSON.parse(info.body.toString('utf8')) as { channels?: string[] }).channels]).toEqual([400, ['alpha', 'beta']]);
    expect(await post(actionPost, '/api/actions?channel=gamma', acks.alpha)).toEqual({ status: 404, body: { error: 'not_found', reason_code: 'which_channel', message: 'no channel gamma is served here' } });
    expect([folderSnapshot(roots.alpha), folderSnapshot(roots.beta)]).toEqual([alpha, beta]);
  });

  it('refuses a bulk request whose actions span channels, whole, writing nothing', async () => {
    const beta = folderSnapshot(roots.beta);
    const alpha = folderSnapshot(roots.alpha);
    const res = await post(bulkPost, '/api/actions/bulk?channel=alpha', { actions: [{ ...acks.alpha, channel: 'alpha' }, { ...acks.beta, channel: 'beta' }] });
    expect(res).toEqual({
      status: 400,
      body: { error: 'bad_request', reason_code: 'channels_mixed', message: 'the actions span channels (alpha, beta): send the acts of each channel in a request of its own' },
    });
    expect([folderSnapshot(roots.alpha), folderSnapshot(roots.beta)]).toEqual([alpha, beta]);
  });
});

describe('operatorsOf', () => {
  it('takes `channel:name` entries for their channel; plain entries only when one channel is served', () => {
    const entries = ['ops', 'alpha:kim', 'Beta:lee'];
    expect(operatorsOf(entries, 'alpha', false)).toEqual(['ops', 'kim']);
    expect(operatorsOf(entries, 'alpha', true)).toEqual(['kim']);
    expect(operatorsOf(entries, 'beta', true)).toEqual(['lee']);
  });
});
