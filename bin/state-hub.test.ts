/** `claimboard state` of several channels, through the real launcher, on copies of vector channels. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VECTORS_DIR } from '../test/support/vectors';

const ROOT = path.resolve(__dirname, '..');
const run = (args: string[], cwd = ROOT) =>
  spawnSync(process.execPath, [path.join(ROOT, 'bin/claimboard.mjs'), ...args], { cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, CLAIMBOARD_OPERATORS: '' } });

/** A parent folder holding `deps` (vector 20), `done` (vector 09) and `notes` (a folder that is no channel). */
const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-state-hub-'));
afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));
fs.cpSync(path.join(VECTORS_DIR, '20-dependencies', 'channel'), path.join(parent, 'deps'), { recursive: true });
fs.cpSync(path.join(VECTORS_DIR, '09-done', 'channel'), path.join(parent, 'done'), { recursive: true });
fs.mkdirSync(path.join(parent, 'notes'));
const deps = path.join(parent, 'deps');
const done = path.join(parent, 'done');

// Neither vector has a card whose lane depends on when its files arrived: the tables are exact at any time.
const DEPS_TABLE = `NEEDS ATTENTION (1)
  c         blocked            -             flags: missing_dependency
      missing_dependency: depends on nope, not an order of this channel: ferry never offers it
STALE (0)
  -
RUNNING (0)
  -
REVIEW (0)
  -
QUEUE (3)
  a         open               -
  b         blocked            -
  d         open               -
DONE (1)
  e         done               fang
PROBLEMS (0)
`;
const DONE_TABLE = `NEEDS ATTENTION (0)
  -
STALE (0)
  -
RUNNING (0)
  -
REVIEW (0)
  -
QUEUE (0)
  -
DONE (1)
  t1        done               fang
PROBLEMS (0)
`;

describe('claimboard state of several channels', () => {
  it('prints one block per channel, headed by its name and folder, each the table of that channel alone', () => {
    const r = run(['state', deps, `finished=${done}`]);
    expect(r.stderr).toBe(
      'claimboard: deps: stale after 300 s (the default; serve uses its own --stale-after)\n' +
        'claimboard: finished: stale after 300 s (the default; serve uses its own --stale-after)\n',
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`CHANNEL deps  ${deps}\n${DEPS_TABLE}\nCHANNEL finished  ${done}\n${DONE_TABLE}`);
    // One channel prints as it always has: the table alone, no heading.
    const alone = run(['state', done]);
    expect(alone.status).toBe(0);
    expect(alone.stdout).toBe(DONE_TABLE);
  });

  it('--json gives each order and problem its channel; --channels-in finds the channels and says what it passed over', () => {
    const r = run(['state', '--channels-in', parent, '--json']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(`claimboard: ${path.join(parent, 'notes')}: no tasks/ or agents/ folder\n`);
    const got = JSON.parse(r.stdout) as { channels: unknown; orders: { channel: string; order_id: string; lane: string }[]; problems: unknown[]; ledger: unknown };
    expect(got.channels).toEqual([
      { name: 'deps', root: deps },
      { name: 'done', root: done },
    ]);
    expect(got.orders.map(({ channel, order_id, lane }) => `${channel}/${order_id}:${lane}`)).toEqual([
      'deps/a:queue',
      'deps/b:queue',
      'deps/c:attention',
      'deps/d:queue',
      'deps/e:done',
      'done/t1:done',
    ]);
    expect(got.problems).toEqual([]);
    expect(got.ledger).toEqual({ deps: {}, done: {} });
  });

  it('a channel that cannot be read is said and exits 1; the others are printed', () => {
    const missing = path.join(parent, 'gone');
    const r = run(['state', missing, done]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('claimboard: gone: no such folder\nclaimboard: done: stale after 300 s (the default; serve uses its own --stale-after)\n');
    expect(r.stdout).toBe(`CHANNEL done  ${done}\n${DONE_TABLE}`);
  });

  it('refuses, exit 2, what a hub refuses: two channels of one name, one workspace\'s options, no channel at all', () => {
    const twice = run(['state', deps, `deps=${done}`]);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toBe(`claimboard: "deps=${done}": the name "deps" is already given to "${deps}"; give one of them another as name=path\n`);
    expect(twice.stdout).toBe('');
    const reap = run(['state', deps, done, '--reap-state', parent]);
    expect(reap.status).toBe(2);
    expect(reap.stderr).toBe('claimboard: --reap-state is the reaper of one channel on this machine: it is refused with several channels or --channels-in\n');
    const none = run(['state']);
    expect(none.status).toBe(2);
    expect(none.stderr).toBe('claimboard: state needs a channel folder (or several, or --channels-in <parent>)\n');
  });
});
