/**
 * A real hub: `claimboard serve` through the launcher (one start) on two vector channels in a
 * parent folder (`--channels-in`, v01 and v11) and the real ferry's alpha channel (`alpha=path`),
 * each a copy in a temp folder, the index in the temp folder's `.claimboard/index/` (its cwd).
 * /api/board holds every order of the three, each with its channel and in the lane the channel
 * read alone gives it; `channel:` narrows to one; a folder added to the parent appears within the
 * rescan, and leaves with its line when it goes; an act on v11 writes only under v11. Needs the
 * production build (skipped, and said, without it; scripts/test.sh runs it after the build).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardBuilt, freePort, REPO, sleep } from '../test/support/soak/proc';
import { copyFerryChannel, copyVectorChannel, removeFolder, tempFolder } from '../test/support/hub';
import { folderSnapshot } from '../test/support/folder';
import { vectorKeys } from '../test/support/vectors';
import { channelStateOf } from '../lib/index/channel-state';
import { buildAction } from '../lib/ledger/actions';
import { naclSign } from '../lib/ledger/nacl-verify';
import type { HubBoardResponse } from '../lib/api/types';

const built = dashboardBuilt();
if (!built) console.warn('serve-hub-real.test.ts: skipped: no production build (.next/BUILD_ID); run `npm run build` first');

const STALE_AFTER_S = 300;
const RESCAN_S = 1;
/** Far beyond a rescan and one small channel's first index on any machine this runs on. */
const APPEARS_WITHIN_MS = 30_000;
const OPS_SEED = (vectorKeys() as Record<string, { seed: string }>).ops?.seed ?? '';

let t = '';
let port = 0;
let proc: ChildProcess | null = null;
let exited: number | null = null;
const lines: string[] = [];
const roots: Record<string, string> = {};

interface Got {
  status: number;
  body: string;
}
function req(method: string, p: string, body?: string): Promise<Got> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'Content-Type': 'application/json', Origin: `http://127.0.0.1:${port}` };
    const r = http.request({ host: '127.0.0.1', port, path: p, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    r.setTimeout(30_000, () => r.destroy(new Error(`${method} ${p}: no answer within 30 s`)));
    r.on('error', reject);
    r.end(body);
  });
}
const board = async (q = ''): Promise<HubBoardResponse> => {
  const r = await req('GET', `/api/board${q ? `?q=${encodeURIComponent(q)}` : ''}`);
  if (r.status !== 200) throw new Error(`GET /api/board: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as HubBoardResponse;
};
/** Every card of the board as `channel/order:lane`, sorted. */
const where = (b: HubBoardResponse) => b.lanes.flatMap((l) => l.cards.map((c) => `${c.channel}/${c.order_id}:${l.lane}`)).sort();
/** Every order of the channels at `roots` as each one's own derivation places it (what a serve of it alone shows), sorted. */
const alone = (names: readonly string[]) =>
  names.flatMap((n) => channelStateOf(roots[n] as string, { staleAfterMs: STALE_AFTER_S * 1000 }).orders.map((c) => `${n}/${c.order_id}:${c.lane}`)).sort();
/** The index file the serve gives the channel at `root`: in its cwd's `.claimboard/index/`, named by the hash of the folder's path. */
const indexFileOf = (root: string) => path.join(t, '.claimboard', 'index', `${createHash('sha256').update(root).digest('hex').slice(0, 16)}.sqlite`);
const tail = () => lines.slice(-20).join('\n');

async function until<T>(what: string, f: () => Promise<T | null>, withinMs: number): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (exited !== null) throw new Error(`claimboard serve exited (${exited}):\n${tail()}`);
    const v = await f().catch(() => null);
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms:\n${tail()}`);
    await sleep(200);
  }
}

beforeAll(async () => {
  if (!built) return;
  t = tempFolder('cb-hub-real-');
  const parent = path.join(t, 'channels');
  roots.v01 = copyVectorChannel('01-open', path.join(parent, 'v01'));
  roots.v11 = copyVectorChannel('11-give-up-ack-reopen', path.join(parent, 'v11'));
  roots.alpha = copyFerryChannel('alpha', path.join(t, 'ferry-alpha'));
  port = await freePort();
  const argv = [path.join(REPO, 'bin', 'claimboard.mjs'), 'serve', `alpha=${roots.alpha}`, '--channels-in', parent, '--rescan', String(RESCAN_S)];
  argv.push('--port', String(port), '--host', '127.0.0.1', '--stale-after', String(STALE_AFTER_S));
  proc = spawn(process.execPath, argv, { cwd: t, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_OPTIONS: '' } });
  proc.on('exit', (code, signal) => (exited = code ?? (signal ? 128 : 1)));
  for (const s of [proc.stdout, proc.stderr]) if (s) readline.createInterface({ input: s }).on('line', (l) => lines.push(l));
  await until('the three channels indexed', async () => {
    const b = await board();
    return b.progress.phase === 'ready' && b.channels.filter((c) => c.read).length === 3 ? b : null;
  }, 120_000);
}, 150_000);

afterAll(async () => {
  const pid = proc?.pid;
  if (pid !== undefined && exited === null) {
    const gone = new Promise((r) => proc?.once('exit', r));
    process.kill(pid, 'SIGTERM');
    const timer = setTimeout(() => process.kill(-pid, 'SIGKILL'), 15_000);
    await gone;
    clearTimeout(timer);
  }
  if (pid !== undefined) {
    try {
      process.kill(-pid, 'SIGKILL'); // the web server, should it outlive its parent
    } catch {
      /* gone */
    }
  }
  if (t) removeFolder(t);
});

describe.skipIf(!built)('claimboard serve of a hub', () => {
  it('holds every order of the three channels, each with its channel and in the lane its channel alone gives it; channel: narrows to one', async () => {
    const b = await board();
    expect(b.channels.map((c) => [c.name, c.state, c.read])).toEqual([
      ['alpha', 'served', true],
      ['v01', 'served', true],
      ['v11', 'served', true],
    ]);
    const all = alone(['alpha', 'v01', 'v11']);
    // 14 orders of alpha, 1 of v01, 3 of v11.
    expect(all.length).toBe(18);
    expect(where(b)).toEqual(all);
    expect(where(await board('channel:v11'))).toEqual(alone(['v11']));
    expect(where(await board('channel:alpha'))).toEqual(alone(['alpha']));
  });

  it('shows a channel folder added to the parent within the rescan, and lets it go with its line when it is removed; the others stay', async () => {
    const before = where(await board());
    roots.v09 = copyVectorChannel('09-done', path.join(t, 'v09-new'));
    fs.renameSync(roots.v09, path.join(t, 'channels', 'v09'));
    roots.v09 = path.join(t, 'channels', 'v09');
    // On the board once its first index is done (before that it is listed as indexing, its cards not yet stored).
    const added = await until('v09 on the board', async () => {
      const b = await board();
      return b.channels.some((c) => c.name === 'v09' && c.read && c.progress?.phase === 'ready') ? b : null;
    }, APPEARS_WITHIN_MS);
    expect(where(added)).toEqual([...before, ...alone(['v09'])].sort());

    fs.renameSync(roots.v09, path.join(t, 'v09-gone'));
    const left = await until('v09 gone from the board', async () => {
      const b = await board();
      return b.channels.some((c) => c.name === 'v09' && c.state === 'gone') ? b : null;
    }, APPEARS_WITHIN_MS);
    expect(left.channels.find((c) => c.name === 'v09')).toMatchObject({ state: 'gone', why: 'folder gone', read: false });
    expect(where(left)).toEqual(before);
    expect(lines.filter((l) => l.includes('channel v09 ') && l.includes('is no longer served'))).toEqual([
      `claimboard: channel v09 (${roots.v09}) is no longer served: folder gone; its cards leave the board, its index ${indexFileOf(roots.v09)} is kept`,
    ]);
  });

  it("applies an act on v11 signed with v11's operator key under v11's folder only: the other folders are byte-identical", async () => {
    const others = { alpha: folderSnapshot(roots.alpha as string), v01: folderSnapshot(roots.v01 as string) };
    const info = JSON.parse((await req('GET', '/api/operators/ops?channel=v11')).body) as { ledger_prev: string; channel: string };
    const card = channelStateOf(roots.v11 as string).orders.find((o) => o.order_id === 'g1');
    if (!card) throw new Error('no g1 in v11');
    const ack = buildAction({ action: 'ack', card, note: 'seen' }, 'ops', (p) => naclSign(OPS_SEED, p), new Date().toISOString(), info.ledger_prev, info.channel);
    const res = await req('POST', '/api/actions?channel=v11', JSON.stringify(ack));
    // Vector 11's folder names no channel id yet: its first act names it (claimboard.channel.json).
    expect([res.status, (JSON.parse(res.body) as { written?: string[] }).written]).toEqual([201, ['claimboard.channel.json', 'tasks/g1/ack.ops.json', 'ledger.ops.jsonl']]);
    expect(fs.existsSync(path.join(roots.v11 as string, 'tasks/g1/ack.ops.json'))).toBe(true);
    expect({ alpha: folderSnapshot(roots.alpha as string), v01: folderSnapshot(roots.v01 as string) }).toEqual(others);
  });
});
