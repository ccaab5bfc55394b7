/**
 * The read endpoints beside the board in a hub: vectors 11 (give-ups, acks and a reopen by ops),
 * 12 (two reopens by ops) and 17 (three bad records), each channel indexed by a Hub (the real
 * indexer) into its own file and read through the registry. Every channel has agents fang,
 * nebra, ops and wisp: two channels' fang are two identities, each row with its channel.
 * Agents, activity and problems merge; the agent page of a name in several channels, the
 * threshold and the fleet history need `?channel=` (`which_channel`, the channels listed).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEndpoint, type Endpoint } from './endpoint';
import { activityGet, agentGet, agentsGet, problemsGet, tuningGet } from './fleet-get';
import { historyGet, holdsGet } from './holds-get';
import type { Answer } from './answer';
import { copyVectorChannel, removeFolder, servedHub, tempFolder } from '../../test/support/hub';

const STALE_AFTER_MS = 300_000;

let t: string;
let served: { stop(): Promise<void> };

type Body = Record<string, unknown>;
const get = (endpoint: Endpoint<unknown>, url: string, params: Record<string, string> = {}) => {
  const a = runEndpoint(endpoint, { url, header: () => null, params }) as Answer;
  return { status: a.status, body: JSON.parse(a.body.toString('utf8')) as Body };
};
const rows = (b: Body, key: string) => b[key] as Body[];

beforeAll(async () => {
  t = tempFolder('cb-hub-fleet-');
  const parent = path.join(t, 'channels');
  copyVectorChannel('11-give-up-ack-reopen', path.join(parent, 'v11'));
  copyVectorChannel('12-reopen-done', path.join(parent, 'v12'));
  copyVectorChannel('17-bad-signatures', path.join(parent, 'v17'));
  served = await servedHub(t, { parents: [parent], staleAfterMs: STALE_AFTER_MS });
});

afterAll(async () => {
  await served.stop();
  removeFolder(t);
});

describe("a hub's GET /api/agents", () => {
  it("lists every channel's agents, by name then channel, each with its channel and what it holds there", () => {
    const b = get(agentsGet, '/api/agents');
    expect(b.status).toBe(200);
    // Holding: v11 g1 fang, g2 wisp (done), g3 nebra; v12 t1 and t2 fang; v17 t1 fang, t3 nebra.
    expect(rows(b.body, 'agents').map((a) => `${String(a.name)}@${String(a.channel)}:${String(a.holding)}`)).toEqual([
      'fang@v11:1', 'fang@v12:2', 'fang@v17:1',
      'nebra@v11:1', 'nebra@v12:0', 'nebra@v17:1',
      'ops@v11:0', 'ops@v12:0', 'ops@v17:0',
      'wisp@v11:1', 'wisp@v12:0', 'wisp@v17:0',
    ]);
    const one = get(agentsGet, '/api/agents?channel=V17');
    expect(rows(one.body, 'agents').map((a) => `${String(a.name)}@${String(a.channel)}:${String(a.holding)}`)).toEqual(['fang@v17:1', 'nebra@v17:1', 'ops@v17:0', 'wisp@v17:0']);
    expect(get(agentsGet, '/api/agents?channel=nope')).toEqual({ status: 404, body: { error: 'not_found', reason_code: 'which_channel', message: 'no channel nope is served here' } });
    expect(get(agentsGet, '/api/agents?channel=a%20b').status).toBe(400);
  });
});

describe("a hub's GET /api/agents/:name", () => {
  it('answers the one identity a channel names; a name in several channels needs ?channel= (which_channel, the channels listed)', () => {
    const fang = get(agentGet, '/api/agents/fang', { name: 'fang' });
    expect(fang).toEqual({
      status: 400,
      body: {
        error: 'bad_request',
        reason_code: 'which_channel',
        message: 'agent fang is in 3 channels (v11, v12, v17), one identity in each: say which with ?channel=<name>',
        channels: ['v11', 'v12', 'v17'],
      },
    });
    // The two fangs' retirements differ: v12's delivered a result on t1 (nothing to release);
    // v17's result on t1 does not verify, so the claim stands without one and is released.
    const in12 = get(agentGet, '/api/agents/fang?channel=v12', { name: 'fang' });
    expect([in12.status, in12.body.channel, (in12.body.holds as Body[]).map((c) => c.order_id), in12.body.retire_plan]).toEqual([200, 'v12', ['t1'], []]);
    const in17 = get(agentGet, '/api/agents/fang?channel=v17', { name: 'fang' });
    expect([in17.status, in17.body.channel, (in17.body.holds as Body[]).map((c) => c.order_id), in17.body.retire_plan]).toEqual([200, 'v17', ['t1'], ['t1']]);
    expect(get(agentGet, '/api/agents/ghost', { name: 'ghost' })).toEqual({ status: 404, body: { error: 'not_found', message: 'no agent ghost in any channel served' } });
    expect(get(agentGet, '/api/agents/ghost?channel=v11', { name: 'ghost' })).toEqual({ status: 404, body: { error: 'not_found', message: 'no agent ghost in channel v11' } });
  });
});

describe("a hub's GET /api/activity", () => {
  it("merges every channel's acts newest first, each with its channel; the cursor walks the merge", () => {
    const all = get(activityGet, '/api/activity');
    expect(all.status).toBe(200);
    const acts = rows(all.body, 'acts');
    // v11: ops acknowledged g2's and g3's give-ups and reopened g3; v12: ops reopened t1 and t2.
    expect(acts.map((a) => `${String(a.channel)}/${String(a.order_id)}:${String(a.act)}`).sort()).toEqual(['v11/g2:ack', 'v11/g3:ack', 'v11/g3:reopen', 'v12/t1:reopen', 'v12/t2:reopen']);
    expect([all.body.total, all.body.operators, all.body.next_cursor]).toEqual([5, ['ops'], null]);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page = get(activityGet, `/api/activity?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      walked.push(...rows(page.body, 'acts').map((a) => String(a.key) + '@' + String(a.channel)));
      cursor = page.body.next_cursor as string | null;
    } while (cursor);
    expect(walked).toEqual(acts.map((a) => String(a.key) + '@' + String(a.channel)));
    const v12 = get(activityGet, '/api/activity?channel=v12&act=reopen');
    expect(rows(v12.body, 'acts').map((a) => `${String(a.channel)}/${String(a.order_id)}`).sort()).toEqual(['v12/t1', 'v12/t2']);
    // A cursor of one channel's answer is not one of the merge, and the other way round.
    const oneCursor = get(activityGet, '/api/activity?channel=v11&limit=1').body.next_cursor as string;
    expect(get(activityGet, `/api/activity?cursor=${oneCursor}`)).toEqual({ status: 400, body: { error: 'bad_request', message: 'cursor: a cursor of one channel; this answer is of several' } });
  });
});

describe("a hub's GET /api/problems", () => {
  it("lists every channel's problem rows with their channel; ?channel= narrows", () => {
    const all = get(problemsGet, '/api/problems');
    expect(rows(all.body, 'problems').map((p) => `${String(p.channel)}/${String(p.path)}:${String(p.problem)}`)).toEqual([
      'v17/tasks/t1/result.fang.001.json:invalid_signature',
      'v17/tasks/t2/release.wisp.fang.json:unauthorized_signer',
      'v17/tasks/t3/result.nebra.001.json:unknown_signer',
    ]);
    expect(all.body.ledger).toEqual({});
    expect(rows(get(problemsGet, '/api/problems?channel=v11').body, 'problems')).toEqual([]);
  });
});

describe("a hub's threshold and fleet history", () => {
  it('are of one channel: without ?channel= a which_channel 400 lists the channels to pick from', () => {
    const which = {
      status: 400,
      body: { error: 'bad_request', reason_code: 'which_channel', message: '3 channels are served here (v11, v12, v17) and a stale threshold is of one: say which with ?channel=<name>', channels: ['v11', 'v12', 'v17'] },
    };
    expect(get(tuningGet, '/api/tuning')).toEqual(which);
    expect(get(tuningGet, '/api/tuning?agent=fang')).toEqual(which);
    const history = get(historyGet, '/api/history');
    expect([history.status, history.body.reason_code, history.body.channels]).toEqual([400, 'which_channel', ['v11', 'v12', 'v17']]);
    expect(get(holdsGet, '/api/holds').status).toBe(400);
    const tuning = get(tuningGet, '/api/tuning?channel=v17&agent=nebra');
    expect([tuning.status, tuning.body.agent, tuning.body.channel]).toEqual([200, 'nebra', path.join(t, 'channels', 'v17')]);
    expect(get(tuningGet, '/api/tuning?channel=v12&agent=ghost')).toEqual({ status: 404, body: { error: 'not_found', message: 'no agent ghost in channel v12' } });
    const holds = get(holdsGet, '/api/holds?channel=v12&range=30d');
    expect([holds.status, (holds.body.holds as Body[]).map((h) => `${String(h.order_id)}:${String(h.agent)}`).sort()]).toEqual([200, ['t1:fang', 't2:fang']]);
  });
});
