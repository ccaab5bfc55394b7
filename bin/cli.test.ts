/** `claimboard state` as other tools call it, through the real launcher. */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { folderSnapshot } from '../test/support/folder';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VECTORS_DIR } from '../test/support/vectors';

const ROOT = path.resolve(__dirname, '..');
const run = (args: string[]) =>
  spawnSync(process.execPath, [path.join(ROOT, 'bin/claimboard.mjs'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });

/** A fresh copy of a vector channel: every file arrives now (ctime = copy time). */
const copies: string[] = [];
afterAll(() => {
  for (const d of copies) fs.rmSync(d, { recursive: true, force: true });
});
function freshCopy(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-cli-'));
  copies.push(dir);
  fs.cpSync(path.join(VECTORS_DIR, name, 'channel'), dir, { recursive: true });
  return dir;
}

describe('claimboard state', () => {
  it('prints cards spelled as docs/channel-format.md (vector 11, give-up / ack / reopen)', () => {
    const out = execFileSync(process.execPath, [path.join(ROOT, 'bin/claimboard.mjs'), 'state', freshCopy('11-give-up-ack-reopen'), '--json'], { encoding: 'utf8' });
    const got = JSON.parse(out) as { orders: { order_id: string; state: string; lane: string; holder: string | null; flags: string[]; reason?: string }[]; problems: unknown[]; ledger: object };
    const pick = got.orders.map(({ order_id, state, lane, holder, flags, reason }) => ({ order_id, state, lane, holder, flags, reason }));
    expect(pick).toEqual([
      { order_id: 'g1', state: 'gave_up', lane: 'attention', holder: 'fang', flags: ['gave_up'], reason: 'run pruned; delivery unknown' },
      { order_id: 'g2', state: 'closed', lane: 'done', holder: 'wisp', flags: [], reason: undefined },
      // the heartbeat was copied just now: fresh within the default 300 s.
      { order_id: 'g3', state: 'claimed', lane: 'running', holder: 'nebra', flags: [], reason: undefined },
    ]);
    expect(got.problems).toEqual([]);
    expect(got.ledger).toEqual({});
  });
  it('--now far ahead makes a claimed order stale, with since on this machine\'s clock', () => {
    const copiedAt = Date.now();
    const dir = freshCopy('03-claimed-fresh');
    const now = new Date(copiedAt + 3600_000).toISOString();
    const r = run(['state', dir, '--json', '--now', now, '--stale-after', '60']);
    expect(r.status).toBe(0);
    const card = (JSON.parse(r.stdout) as { orders: { state: string; since: string }[] }).orders[0];
    expect(card?.state).toBe('stale');
    // since = the heartbeat's arrival (its copy, ctime) + 60 s.
    const since = Date.parse(card?.since ?? '');
    expect(since).toBeGreaterThanOrEqual(copiedAt + 60_000 - 5);
    expect(since).toBeLessThanOrEqual(Date.now() + 60_000);
  });
  it('prints a readable table without --json', () => {
    const r = run(['state', path.join(VECTORS_DIR, '20-dependencies/channel')]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^NEEDS ATTENTION \(1\)\n {2}c +blocked +- +flags: missing_dependency$/m);
    expect(r.stdout).toMatch(/^QUEUE \(3\)$/m);
  });
  it('exits 0 on a folder full of problems', () => {
    const r = run(['state', path.join(VECTORS_DIR, '17-bad-signatures/channel'), '--json']);
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as { problems: unknown[] }).problems).toHaveLength(3);
  });
  it('exits 1 with one line when the folder cannot be read', () => {
    const missing = run(['state', '/nonexistent/channel']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe('claimboard: no such folder: /nonexistent/channel\n');
    const notChannel = run(['state', path.join(ROOT, 'bin')]);
    expect(notChannel.status).toBe(1);
    expect(notChannel.stderr.trim().split('\n')).toHaveLength(1);
    expect(notChannel.stderr).toMatch(/not a channel/);
  });
  it('exits 2 on bad usage', () => {
    expect(run(['state', VECTORS_DIR, '--now', 'yesterday']).status).toBe(2);
    expect(run(['state', VECTORS_DIR, '--stale-after', '-5']).status).toBe(2);
    expect(run(['frobnicate']).status).toBe(2);
  });
});

describe('claimboard requeue | retire | reopen | ack', () => {
  const keysDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-keys-'));
  copies.push(keysDir);
  const k = JSON.parse(fs.readFileSync(path.join(VECTORS_DIR, 'keys.json'), 'utf8')) as Record<string, { seed: string }>;
  for (const n of ['ops', 'fang']) fs.writeFileSync(path.join(keysDir, `${n}.key`), `${k[n]?.seed}\n`, { mode: 0o600 });
  const refused = (root: string, args: string[], reason: RegExp) => {
    const before = folderSnapshot(root);
    const r = run(args);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(reason);
    expect(r.stdout).toBe('');
    expect(folderSnapshot(root)).toEqual(before);
  };

  it('acknowledges a give-up and prints the paths written: the first act on a folder names its channel too', () => {
    const root = freshCopy('11-give-up-ack-reopen');
    const r = run(['ack', root, 'g1', '--key', path.join(keysDir, 'ops.key'), '--note', 'known flaky']);
    expect([r.status, r.stdout]).toEqual([0, 'claimboard.channel.json\ntasks/g1/ack.ops.json\nledger.ops.jsonl\n']);
    const channel = (JSON.parse(fs.readFileSync(path.join(root, 'claimboard.channel.json'), 'utf8')) as { channel: string }).channel;
    expect(channel).toMatch(/^[0-9a-f]{32}$/);
    expect((JSON.parse(fs.readFileSync(path.join(root, 'tasks/g1/ack.ops.json'), 'utf8')) as { channel: string }).channel).toBe(channel);
  });
  it('refuses like the HTTP endpoint, writing nothing', () => {
    const root = freshCopy('11-give-up-ack-reopen');
    // a roster agent who is not an operator
    refused(root, ['ack', root, 'g1', '--key', path.join(keysDir, 'fang.key')], /^claimboard: fang is not an operator of this channel$/m);
    // a key that is not the named operator's (a forgery)
    refused(root, ['ack', root, 'g1', '--key', path.join(keysDir, 'fang.key'), '--as', 'ops'], /is not ops's key in the roster/);
    // a rule of docs/channel-format.md (and its extension): only a give-up or a late result can be acknowledged
    refused(root, ['reopen', root, 'g1', '--key', path.join(keysDir, 'ops.key'), '--reason', 'x'], /refused \(422\): g1 is gave_up: only done, accepted or closed orders can be reopened/);
    // an order naming nothing to reopen: the same rule's words
    refused(root, ['reopen', root, 'g3', '--key', path.join(keysDir, 'ops.key'), '--reason', 'x'], /refused \(422\): g3 is (claimed|stale): only done, accepted or closed orders can be reopened/);
    // a file written by someone else in the way
    fs.writeFileSync(path.join(root, 'tasks/g1/ack.ops.json'), '{"planted": true}');
    refused(root, ['ack', root, 'g1', '--key', path.join(keysDir, 'ops.key')], /refused \(409\): tasks\/g1\/ack\.ops\.json is in the way/);
    fs.rmSync(path.join(root, 'tasks/g1/ack.ops.json'));
    // a replay: the second time the give-up is already acknowledged
    expect(run(['ack', root, 'g1', '--key', path.join(keysDir, 'ops.key')]).status).toBe(0);
    refused(root, ['ack', root, 'g1', '--key', path.join(keysDir, 'ops.key')], /refused \(422\): g1 is closed: only a give-up or a late result can be acknowledged/);
    // a live run is never stolen from
    refused(root, ['retire', root, 'nebra', '--key', path.join(keysDir, 'ops.key'), '--reason', 'gone'], /nebra looks alive/);
  });
  it('needs a reason for re-queue, retire and reopen (usage error, exit 2)', () => {
    const root = freshCopy('11-give-up-ack-reopen');
    expect(run(['retire', root, 'nebra', '--key', path.join(keysDir, 'ops.key')]).status).toBe(2);
  });
});

describe('claimboard serve: alert options', () => {
  it('refuses a webhook that is not http(s), and a quiet period that is not seconds, before serving anything (exit 2)', () => {
    const r = run(['serve', path.join(VECTORS_DIR, '01-open/channel'), '--alert-webhook', 'ftp://example.org/x']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('an http or https URL, not ftp:');
    const r2 = run(['serve', path.join(VECTORS_DIR, '01-open/channel'), '--alert-after=-1']);
    expect(r2.status).toBe(2);
    expect(r2.stderr).toContain('a number of seconds');
  });
});
