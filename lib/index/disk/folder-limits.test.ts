/**
 * Folders the reader does not read, on real files: an order folder with more entries than
 * MAX_FOLDER_ENTRIES (any machine of the fleet can fill one) and a folder that cannot be listed
 * are each one problem row, and the rest of the channel is read as before, by every reader: the
 * CLI's (readChannel), the indexer's and the order page's (passOrder), an action's (deriveSubset).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_FOLDER_ENTRIES } from './read-channel';
import { channelStateOf } from '../channel-state';
import { passOrder } from '../writer/order-pass';
import { serverVerify } from './verifier';
import { deriveSubset } from '../../actions/apply';
import { VECTORS_DIR } from '../../../test/support/vectors';
import { REPO } from '../../../test/support/soak/proc';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) {
    spawnSync('chmod', ['-R', 'u+rwx', d]);
    fs.rmSync(d, { recursive: true, force: true });
  }
  dirs = [];
});

/** Vector 11 (orders g1, g2, g3) in a temp folder readable by everyone. */
function channel(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-limits-'));
  dirs.push(dir);
  fs.chmodSync(dir, 0o755);
  const root = path.join(dir, 'channel');
  fs.cpSync(path.join(VECTORS_DIR, '11-give-up-ack-reopen', 'channel'), root, { recursive: true });
  return root;
}

const NOW = Date.parse('2026-12-01T00:00:00Z');

describe('an order folder over MAX_FOLDER_ENTRIES', () => {
  it('is one problem row for the CLI, the indexer, the order page and an action; the other orders are read as before', () => {
    const root = channel();
    for (let i = 0; i <= MAX_FOLDER_ENTRIES; i++) fs.writeFileSync(path.join(root, 'tasks', 'g1', `heartbeat.w${i}.json`), '');
    const why = `more than ${MAX_FOLDER_ENTRIES} entries: none of them is read`;

    const state = channelStateOf(root, { nowMs: NOW });
    expect(state.orders.map((o) => o.order_id)).toEqual(['g2', 'g3']);
    expect(state.problems.filter((p) => p.path.startsWith('tasks/g1'))).toEqual([{ path: 'tasks/g1', problem: 'invalid', detail: why }]);

    const pass = passOrder('g1', {
      root,
      roster: state.roster,
      derive: { nowMs: NOW, staleAfterMs: 300_000, retired: new Set(), lastArrivalByAgent: new Map() },
      verify: serverVerify,
    });
    expect([pass.card, pass.problems, pass.files.map((f) => f.path)]).toEqual([null, [{ path: 'tasks/g1', problem: 'invalid', detail: why }], ['tasks/g1']]);

    const subset = deriveSubset({ root, nowMs: NOW, staleAfterMs: 300_000, operators: [], verify: serverVerify }, ['g1', 'g2']);
    expect([...subset.views.keys()]).toEqual(['g2']);
    expect(subset.problems.filter((p) => p.path.startsWith('tasks/g1'))).toEqual([{ path: 'tasks/g1', problem: 'invalid', detail: why }]);
  });
});

/**
 * Runs `claimboard state --json` as a process the folder's modes apply to: as root (who reads any
 * folder) through setpriv without any capability (still uid 0, so the checkout stays readable
 * wherever it lies, but a mode of 000 holds), otherwise as this user.
 */
function stateAsUser(root: string): { status: number | null; json: { orders: { order_id: string }[]; problems: { path: string; problem: string; detail: string }[] }; stderr: string } {
  const cli = [process.execPath, path.join(REPO, 'bin', 'claimboard.mjs'), 'state', root, '--json'];
  const asRoot = process.getuid?.() === 0;
  const [cmd, ...args] = asRoot ? ['setpriv', '--bounding-set=-all', '--inh-caps=-all', '--ambient-caps=-all', '--', ...cli] : cli;
  const r = spawnSync(cmd as string, args, { encoding: 'utf8', env: { ...process.env, HOME: os.tmpdir() }, timeout: 120_000 });
  return { status: r.status, json: JSON.parse(r.stdout || '{"orders":[],"problems":[]}') as never, stderr: r.stderr };
}

describe('a folder that cannot be listed', () => {
  it('is a problem row, not an empty folder, and `claimboard state` says the board is incomplete with a non-zero exit', () => {
    const root = channel();
    // The CLI bundle is built (or found fresh) first, with every capability.
    expect(spawnSync(process.execPath, [path.join(REPO, 'bin', 'claimboard.mjs'), 'state', root, '--json'], { encoding: 'utf8', timeout: 120_000 }).status).toBe(0);

    fs.chmodSync(path.join(root, 'tasks', 'g1'), 0o000);
    const one = stateAsUser(root);
    expect(one.json.orders.map((o) => o.order_id)).toEqual(['g2', 'g3']);
    expect(one.json.problems.filter((p) => p.path.startsWith('tasks/g1'))).toEqual([{ path: 'tasks/g1', problem: 'invalid', detail: 'cannot list it: EACCES; nothing in it is read' }]);
    expect(one.status).toBe(1);
    expect(one.stderr).toMatch(/tasks\/g1 cannot be listed/);

    fs.chmodSync(path.join(root, 'tasks', 'g1'), 0o755);
    fs.chmodSync(path.join(root, 'tasks'), 0o000);
    const all = stateAsUser(root);
    expect(all.json.orders).toEqual([]);
    expect(all.json.problems.filter((p) => p.path.startsWith('tasks'))).toEqual([{ path: 'tasks', problem: 'invalid', detail: 'cannot list it: EACCES; nothing in it is read' }]);
    expect(all.status).toBe(1);
  });
});
