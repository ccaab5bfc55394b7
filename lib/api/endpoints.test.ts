/**
 * The endpoints that moved out of app/api, their `execute` called on an index the real Indexer
 * builds from vectors 11 (g1 given up by fang, g2 closed by wisp, g3 claimed by nebra; ops
 * acknowledged g2's and g3's give-ups and reopened g3) and 17 (t1 claimed by fang, t2 open, t3
 * claimed by nebra, with three files whose signatures fail), copied into one folder: what each answers, its refusals through the executor, and the served
 * channel read from the index (no CLAIMBOARD_CHANNEL in the environment).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWriter, type DB } from '../index/db';
import { Indexer } from '../index/indexer';
import { latestSeq } from '../index/read/queries';
import { VECTORS_DIR } from '../../test/support/vectors';
import { contextOf, runEndpoint, type Endpoint } from './endpoint';
import { activityGet, agentGet, agentsGet, alertsGet, problemsGet, tuningGet } from './fleet-get';
import { demoKeyGet, operatorGet } from './acts';
import { eventsGet } from './events-get';
import type { Answer } from './answer';
import type { ActivityResponse, AgentResponse, AgentsResponse, ProblemsResponse } from './types';

let dir = '';
let root = '';
let db: DB;
let ix: Indexer;
const saved = { channel: process.env.CLAIMBOARD_CHANNEL, key: process.env.CLAIMBOARD_DEMO_OPERATOR_KEY };

beforeAll(async () => {
  delete process.env.CLAIMBOARD_CHANNEL;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-endpoints-'));
  root = path.join(dir, 'channel');
  for (const v of ['11-give-up-ack-reopen', '17-bad-signatures']) fs.cpSync(path.join(VECTORS_DIR, v, 'channel'), root, { recursive: true, force: true });
  db = openWriter(path.join(dir, 'index.sqlite'));
  ix = new Indexer({ root, db, staleAfterMs: 120_000, watch: false, workers: 0 });
  await ix.start();
});

afterAll(async () => {
  await ix.stop();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  for (const [k, v] of [['CLAIMBOARD_CHANNEL', saved.channel], ['CLAIMBOARD_DEMO_OPERATOR_KEY', saved.key]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** What `endpoint` executes to for `raw` (parsed by its schema) on the test's index. */
function exec<R>(endpoint: Endpoint<R>, raw: Record<string, string> = {}): unknown {
  return endpoint.execute(contextOf({ url: endpoint.path, header: () => null }, () => db), endpoint.request.parse(raw));
}

/** The executor's answer on the test's index, as [status, body]. */
async function answer<R>(endpoint: Endpoint<R>, url: string, params: Record<string, string> = {}): Promise<[number, unknown]> {
  const a = (await runEndpoint(endpoint, { url, params, header: () => null }, { open: () => db })) as Answer;
  return [a.status, JSON.parse(a.body.toString('utf8'))];
}

describe('the fleet endpoints on a real index', () => {
  it('GET /api/agents: the roster, what each holds (Done included: wisp\'s g2) and who is an operator', () => {
    const r = exec(agentsGet) as AgentsResponse;
    expect(r.agents.map((a) => [a.name, a.holding, a.is_operator])).toEqual([
      ['fang', 2, false],
      ['nebra', 2, false],
      ['ops', 0, true],
      ['wisp', 1, false],
    ]);
  });

  it("GET /api/agents/:name: fang holds g1 and t1, its retirement's plan read from the folder the index serves", async () => {
    const r = exec(agentGet, { name: 'fang' }) as AgentResponse & { retire_plan?: string[] };
    expect([r.agent.name, r.holds.map((c) => c.order_id), r.retire_plan]).toEqual(['fang', ['g1', 't1'], ['g1', 't1']]);
    expect(await answer(agentGet, '/api/agents/ghost', { name: 'ghost' })).toEqual([404, { error: 'not_found', message: 'no agent ghost in this channel' }]);
    expect(await answer(agentGet, '/api/agents/a%20b', { name: 'a b' })).toEqual([400, { error: 'bad_request', message: '"a b" is not an agent name' }]);
  });

  it("GET /api/activity: ops's three acts (two acknowledgements, one reopen), filtered by kind; a cursor not of this API is a 400", async () => {
    const all = exec(activityGet) as ActivityResponse;
    expect([all.total, all.operators, all.acts.map((a) => [a.act, a.order_id]).sort()]).toEqual([3, ['ops'], [['ack', 'g2'], ['ack', 'g3'], ['reopen', 'g3']]]);
    expect((exec(activityGet, { act: 'reopen' }) as ActivityResponse).total).toBe(1);
    expect(await answer(activityGet, '/api/activity?cursor=nope')).toEqual([400, { error: 'bad_request', message: 'cursor: not a cursor from this API' }]);
    expect(await answer(activityGet, '/api/activity?act=delete')).toEqual([400, { error: 'bad_request', message: expect.stringMatching(/^act: Invalid option/) as unknown }]);
  });

  it("GET /api/problems: 17-bad-signatures' three problems, as its expect.json names them", () => {
    const r = exec(problemsGet) as ProblemsResponse;
    expect(r.problems.map((p) => [p.path, p.problem]).sort()).toEqual([
      ['tasks/t1/result.fang.001.json', 'invalid_signature'],
      ['tasks/t2/release.wisp.fang.json', 'unauthorized_signer'],
      ['tasks/t3/result.nebra.001.json', 'unknown_signer'],
    ]);
  });

  it('GET /api/tuning: the stale_after and channel the index serves; an unknown agent is a 404', async () => {
    expect(exec(tuningGet)).toMatchObject({ agent: null, stale_after_ms: 120_000, channel: root });
    expect(await answer(tuningGet, '/api/tuning?agent=ghost')).toEqual([404, { error: 'not_found', message: 'no agent ghost in this channel' }]);
  });

  it('GET /api/alerts: no alert configured by serve, so off', () => {
    expect(exec(alertsGet)).toMatchObject({ configured: false, status: 'off', targets: [] });
  });
});

describe("the operator's endpoints on a real index", () => {
  it('GET /api/operators/:name: ops is an operator with its pinned key, and the next act is for a new channel of the folder the index serves', () => {
    const r = exec(operatorGet, { name: 'ops' });
    expect(r).toMatchObject({ name: 'ops', in_roster: true, is_operator: true, public_key: '3a5308938c46669a7d7479aa92c13c38972b3bf871f4eda1c06de67c9765eb43', channel_new: true, channel_problem: null });
    expect((r as { channel: string }).channel).toMatch(/^[0-9a-f]{32}$/);
  });

  it('GET /api/demo-key: 404 on a real channel, the seed in demo mode', async () => {
    delete process.env.CLAIMBOARD_DEMO_OPERATOR_KEY;
    expect(await answer(demoKeyGet, '/api/demo-key')).toEqual([404, { error: 'not_found', message: 'no demo key: this dashboard serves a real channel' }]);
    const file = path.join(dir, 'ops.seed');
    fs.writeFileSync(file, 'ab'.repeat(32) + '\n');
    process.env.CLAIMBOARD_DEMO_OPERATOR_KEY = file;
    expect(exec(demoKeyGet)).toEqual({ name: 'ops', seed: 'ab'.repeat(32), note: 'demo only: this key signs for the demo operator ops of ./.claimboard/demo' });
  });
});

describe('GET /api/events', () => {
  it("opens with `hello` and the index's change seq, as a stream with the event-stream headers", async () => {
    const a = await runEndpoint(eventsGet, { url: '/api/events', params: {}, header: () => null }, { open: () => db });
    if (!('stream' in a)) throw new Error('expected a stream');
    expect([a.status, a.headers['Content-Type'], a.headers['Cache-Control']]).toEqual([200, 'text/event-stream; charset=utf-8', 'no-store']);
    const reader = a.stream.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe(`retry: 1000\nevent: hello\ndata: {"seq":${latestSeq(db)}}\n\n`);
    await reader.cancel();
  });
});
