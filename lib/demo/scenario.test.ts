import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deriveChannel, type ChannelState } from '../ledger/channel';
import { LANES, type Lane } from '../ledger/derive';
import { naclPublicKey } from '../ledger/nacl-verify';
import { nodeVerify } from '../index/disk/node-verify';
import { readChannel } from '../index/disk/read-channel';
import { compareTimestamps, parseTimestamp } from '../ledger/time';
import { demoKeysDir, loadDemoIdentity } from './cast';
import { readDemoManifest } from './manifest';
import { ensureDemoChannel, writeDemoChannel } from './scenario';
import { readKeyFile } from './identity';
import { writeHeartbeat } from './write';

let tmp: string;
let dir: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-scenario-'));
  dir = path.join(tmp, 'channel');
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const derive = (staleAfterMs = 300_000, nowMs = Date.now()): ChannelState =>
  deriveChannel(readChannel(dir), { nowMs, staleAfterMs, verify: nodeVerify });
const lanes = (s: ChannelState) => {
  const out = Object.fromEntries(LANES.map((l) => [l, [] as string[]])) as Record<Lane, string[]>;
  for (const c of s.orders) out[c.lane].push(c.order_id);
  return out;
};
const byId = (s: ChannelState, id: string) => s.orders.find((o) => o.order_id === id);

describe('writeDemoChannel', () => {
  it('writes a clean channel with cards in every lane but stale, keys outside it', () => {
    const demo = writeDemoChannel(dir);
    expect(demo.created).toBe(true);
    expect(demo.orders).toBeGreaterThanOrEqual(25);
    expect(demo.orders).toBeLessThanOrEqual(40);
    const s = derive();
    expect(s.problems).toEqual([]);
    for (const [file, r] of Object.entries(s.ledger)) expect(r.intact, file).toBe(true);
    const l = lanes(s);
    expect(l.attention.sort()).toEqual([
      'export-csv-1033',
      'flaky-test-web-880',
      'hotfix-api-1041',
      'ingest-api-1035',
      'pentest-vpn-79',
      'purge-cdn-516',
    ]);
    expect(l.stale).toEqual([]);
    for (const lane of ['running', 'review', 'queue', 'done'] as const) expect(l[lane].length, lane).toBeGreaterThanOrEqual(3);
    expect(byId(s, 'flaky-test-web-880')?.flags).toEqual(['gave_up']);
    expect(byId(s, 'ingest-api-1035')).toMatchObject({ holder: 'fang', flags: ['double_run'] });
    expect(byId(s, 'export-csv-1033')?.flags).toEqual(['late_result']);
    // a retired name's delivered work waits for review like any other; what is addressed to it is an alarm
    expect(byId(s, 'audit-deps-215')).toMatchObject({ state: 'awaiting_review', lane: 'review', flags: [] });
    expect(byId(s, 'pentest-vpn-79')).toMatchObject({ state: 'offered', holder: 'moth', flags: ['retired_holder'] });
    expect(byId(s, 'purge-cdn-516')).toMatchObject({ state: 'offered', holder: 'ghost', flags: ['stop_not_holding'] });
    expect(byId(s, 'hotfix-api-1041')).toMatchObject({ state: 'offered', flags: ['released_assignee'] });
    // what a healthy ferry fleet leaves behind is routine: self-releases, a leftover heartbeat, an acknowledged steer
    expect(byId(s, 'sdk-gen-214')).toMatchObject({ state: 'done', lane: 'done', holder: 'fang', flags: [] });
    expect(byId(s, 'docs-api-1030')).toMatchObject({ state: 'done', lane: 'done', holder: 'nebra', flags: [], other_runs: [] });
    expect(byId(s, 'rename-crate-63')).toMatchObject({ state: 'done', lane: 'done', holder: 'wisp', flags: [] });
    for (const c of s.orders.filter((o) => o.lane === 'attention')) expect(c.alerts.length, c.order_id).toBe(c.flags.length);
    expect(byId(s, 'bench-api-1018')?.state).toBe('closed');
    expect(byId(s, 'docs-sdk-212')?.state).toBe('accepted');
    expect(byId(s, 'i18n-web-879')?.state).toBe('changes_requested');
    expect(byId(s, 'release-notes-58')?.state).toBe('claimed');
    expect(byId(s, 'release-2.4')?.state).toBe('blocked');
    expect(byId(s, 'tune-db-312')?.state).toBe('offered');
    expect(byId(s, 'cleanup-ci-90')?.state).toBe('open');
    expect(byId(s, 'rotate-keys-77')?.state).toBe('open');

    // keys: outside the channel, 0600, matching the roster; none inside the channel
    expect(demo.keysDir).toBe(path.join(tmp, 'keys'));
    expect(demo.operatorKeyPath).toBe(path.join(tmp, 'keys', 'ops.key'));
    const seed = readKeyFile(demo.operatorKeyPath ?? '');
    expect(fs.statSync(demo.operatorKeyPath ?? '').mode & 0o777).toBe(0o600);
    expect(s.roster.entries.get('ops')?.public_key).toBe(naclPublicKey(seed));
    expect([...s.roster.operators]).toEqual(['ops']);
    expect(s.roster.entries.get('orchestrator')?.role).toBe('orchestrator');
    const walk = (d: string): string[] =>
      fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [e.name]));
    expect(walk(dir).filter((n) => n.endsWith('.key') || n.startsWith('.'))).toEqual([]);
  });

  it('writes what the real ferry writes: start self-releases, a leftover heartbeat, acknowledgements, a retire', () => {
    const nowMs = Date.parse('2026-12-01T11:00:00.250Z');
    writeDemoChannel(dir, { nowMs });
    const task = (id: string) => path.join(dir, 'tasks', id);
    const json = (id: string, name: string) => JSON.parse(fs.readFileSync(path.join(task(id), name), 'utf8')) as Record<string, unknown>;
    const ts = (v: unknown) => {
      const t = parseTimestamp(String(v));
      if (!t.ok) throw new Error(t.reason);
      return t.value;
    };

    // fang's start, 110 min before now: its orphan, addressed to it while it was down, released
    // before it ever claimed it, then claimed and done all the same; no heartbeat left (the run ended)
    expect(fs.readdirSync(task('sdk-gen-214')).sort()).toEqual(['claim.fang.json', 'order.json', 'release.fang.json', 'result.fang.001.json']);
    const orphan = json('sdk-gen-214', 'release.fang.json');
    expect(orphan).toMatchObject({ order_id: 'sdk-gen-214', released: 'fang', releaser: 'fang', reason: 'orphaned at startup', at: '2026-12-01T09:10:00.250Z', signed_by: 'fang' });
    expect(compareTimestamps(ts(orphan.at), ts(json('sdk-gen-214', 'claim.fang.json').claimed_at))).toBeLessThan(0);
    expect(json('sdk-gen-214', 'order.json')).toMatchObject({ assigned_to: 'fang', issued_by: 'orchestrator', signed_by: 'orchestrator' });

    // ... and its dead run: released by itself after its last heartbeat, the heartbeat left in place, nebra finished it
    expect(fs.readdirSync(task('docs-api-1030')).sort()).toEqual([
      'claim.fang.json',
      'claim.nebra.json',
      'heartbeat.fang.json',
      'order.json',
      'release.fang.json',
      'result.nebra.001.json',
    ]);
    const dead = json('docs-api-1030', 'release.fang.json');
    expect(dead).toMatchObject({ released: 'fang', releaser: 'fang', reason: 'worker died mid-run', at: '2026-12-01T09:10:00.250Z', signed_by: 'fang' });
    expect(json('docs-api-1030', 'heartbeat.fang.json').at).toBe('2026-12-01T08:50:00.250Z');

    // the kill: ghost (clock 7 min behind) acknowledged it 21 min ago, unsigned, keys alphabetical,
    // `+00:00`, no trailing newline; its claim is gone
    expect(fs.readdirSync(task('purge-cdn-516')).sort()).toEqual(['interrupt.ops.ghost.acked.json', 'interrupt.ops.json', 'order.json']);
    expect(fs.readFileSync(path.join(task('purge-cdn-516'), 'interrupt.ops.ghost.acked.json'), 'utf8')).toBe(
      '{\n  "acknowledged_at": "2026-12-01T10:32:00.250+00:00",\n  "agent": "ghost",\n  "issued_by": "ops",\n  "order_id": "purge-cdn-516"\n}',
    );
    expect(json('purge-cdn-516', 'interrupt.ops.json')).toMatchObject({ action: 'kill', issued_by: 'ops', signed_by: 'ops' });
    expect(fs.readFileSync(path.join(dir, 'ledger.ghost.jsonl'), 'utf8')).toContain('"summary":"killed purge-cdn-516 on interrupt from ops"');

    // the steer: acknowledged by wisp when its run started, the run went on to a result
    expect(json('rename-crate-63', 'interrupt.ops.json')).toMatchObject({ action: 'steer' });
    expect(json('rename-crate-63', 'interrupt.ops.wisp.acked.json')).toEqual({
      acknowledged_at: '2026-12-01T11:50:00.250+00:00',
      agent: 'wisp',
      issued_by: 'ops',
      order_id: 'rename-crate-63',
    });

    // `ferry channel retire --agent moth` by the orchestrator: the claimed order and the addressed
    // one, not the order moth delivered
    const retired = { released: 'moth', releaser: 'orchestrator', reason: 'retired', at: '2026-12-01T09:10:00.250Z', signed_by: 'orchestrator' };
    expect(json('rotate-keys-77', 'release.orchestrator.json')).toMatchObject({ order_id: 'rotate-keys-77', ...retired });
    expect(json('pentest-vpn-79', 'release.orchestrator.json')).toMatchObject({ order_id: 'pentest-vpn-79', ...retired });
    expect(fs.readdirSync(task('audit-deps-215')).filter((n) => n.startsWith('release.'))).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'retirements', 'moth.ops.json'))).toBe(true);

    // finished and given-up runs removed their heartbeats; only dead runs and live ones keep one
    expect(fs.existsSync(path.join(task('build-api-1031'), 'heartbeat.fang.json'))).toBe(false);
    expect(fs.existsSync(path.join(task('flaky-test-web-880'), 'heartbeat.kestrel.json'))).toBe(false);
    expect(fs.existsSync(path.join(task('rotate-keys-77'), 'heartbeat.moth.json'))).toBe(true);
    expect(derive().problems).toEqual([]);
  });

  it('stale after stale_after where the fleet stops touching files, with the §6 reasons', async () => {
    writeDemoChannel(dir);
    const m = readDemoManifest(dir);
    await new Promise((r) => setTimeout(r, 1100));
    // what the fleet does: keep its runs' heartbeats fresh
    for (const r of m.runs) writeHeartbeat(dir, loadDemoIdentity(demoKeysDir(dir), r.agent), r.order_id, r);
    const s = derive(1000);
    expect(s.problems).toEqual([]);
    const stale = Object.fromEntries(s.orders.filter((c) => c.lane === 'stale').map((c) => [c.order_id, c.reason]));
    expect(stale).toEqual({
      'index-search-502': 'agent_silent',
      'cache-api-1040': 'agent_silent',
      'e2e-web-882': 'heartbeat_lapsed',
      'backfill-db-309': 'no_heartbeat',
    });
    expect(lanes(s).running.sort()).toEqual(['build-api-1042', 'i18n-web-879', 'migrate-db-311', 'perf-api-1039', 'release-notes-58', 'test-web-884']);
    expect(byId(s, 'ingest-api-1035')?.flags).toEqual(['double_run']);
  });

  it('ensureDemoChannel leaves an existing channel alone and refuses a non-empty non-channel', () => {
    const first = ensureDemoChannel(dir);
    expect(first.created).toBe(true);
    const order = path.join(dir, 'tasks', 'build-api-1042', 'order.json');
    const before = fs.readFileSync(order);
    const again = ensureDemoChannel(dir);
    expect(again).toMatchObject({ created: false, operatorKeyPath: first.operatorKeyPath });
    expect(fs.readFileSync(order)).toEqual(before);

    const other = path.join(tmp, 'other');
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, 'notes.txt'), 'hi');
    expect(() => ensureDemoChannel(other)).toThrow(/not empty/);
  });

  it('reuses existing seeds in the keys folder when the channel is written again', () => {
    const first = writeDemoChannel(dir);
    const seed = readKeyFile(first.operatorKeyPath ?? '');
    fs.rmSync(dir, { recursive: true });
    const second = writeDemoChannel(dir);
    expect(readKeyFile(second.operatorKeyPath ?? '')).toBe(seed);
    expect(derive().problems).toEqual([]);
  });
});
