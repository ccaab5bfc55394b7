import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deriveChannel, type ChannelState } from '../ledger/channel';
import { LANES, type Lane } from '../ledger/derive';
import { naclPublicKey, naclVerify } from '../ledger/nacl-verify';
import { readChannel } from '../index/read-channel';
import { demoKeysDir, ensureDemoChannel, loadDemoIdentity, readDemoManifest, writeDemoChannel } from './scenario';
import { readKeyFile, writeHeartbeat } from './write';

let tmp: string;
let dir: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-scenario-'));
  dir = path.join(tmp, 'channel');
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const derive = (staleAfterMs = 300_000, nowMs = Date.now()): ChannelState =>
  deriveChannel(readChannel(dir), { nowMs, staleAfterMs, verify: naclVerify });
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
    expect(l.attention.sort()).toEqual(['audit-deps-215', 'export-csv-1033', 'flaky-test-web-880', 'hotfix-api-1041', 'ingest-api-1035']);
    expect(l.stale).toEqual([]);
    for (const lane of ['running', 'review', 'queue', 'done'] as const) expect(l[lane].length, lane).toBeGreaterThanOrEqual(3);
    expect(byId(s, 'flaky-test-web-880')?.flags).toEqual(['gave_up']);
    expect(byId(s, 'ingest-api-1035')).toMatchObject({ holder: 'fang', flags: ['double_run'] });
    expect(byId(s, 'export-csv-1033')?.flags).toEqual(['late_result']);
    expect(byId(s, 'audit-deps-215')?.flags).toEqual(['retired_holder']);
    expect(byId(s, 'hotfix-api-1041')).toMatchObject({ state: 'offered', flags: ['released_assignee'] });
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
    const walk = (d: string): string[] =>
      fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [e.name]));
    expect(walk(dir).filter((n) => n.endsWith('.key') || n.startsWith('.'))).toEqual([]);
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
