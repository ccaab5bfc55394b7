/**
 * Attacks on the real `claimboard serve` (a read token set, vector 11's channel): each must fail
 * and leave the board answering. Needs the production build (skipped, and said, without it;
 * scripts/test.sh runs it after the build).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardBuilt, descendants, freePort, killAll, REPO, ServeProcess, sleep } from '../test/support/soak/proc';
import { VECTORS_DIR, vectorKeys } from '../test/support/vectors';
import { folderSnapshot } from '../test/support/folder';
import { channelStateOf } from '../lib/index/channel-state';
import { buildAction, type ActionRequest } from '../lib/ledger/actions';
import { applyAction } from '../lib/actions/apply';
import { ledgerPrevOf } from '../lib/actions/write';
import { nodeVerify } from '../lib/index/disk/node-verify';
import { nameChannel } from '../test/support/channel';
import { naclSign } from '../lib/ledger/nacl-verify';
import { MAX_POST_BODY_BYTES } from '../lib/security';
import { until } from '../test/support/until';

const built = dashboardBuilt();
if (!built) console.warn('serve-attacks.test.ts: skipped: no production build (.next/BUILD_ID); run `npm run build` first');

const TOKEN = 'a-read-token-for-the-attacks-0123456789';
const auth = { Authorization: `Bearer ${TOKEN}` };
const keys = vectorKeys() as Record<string, { seed: string }>;

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}
let port = 0;
/** One request on its own connection; `body` a string, or a number of bytes streamed chunked. */
function req(method: string, p: string, headers: Record<string, string> = {}, body?: string | number, timeoutMs = 30_000): Promise<Got> {
  return new Promise((resolve, reject) => {
    const r = http.request({ host: '127.0.0.1', port, path: p, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    r.setTimeout(timeoutMs, () => r.destroy(new Error(`${method} ${p}: no answer within ${timeoutMs} ms`)));
    r.on('error', reject);
    if (typeof body === 'number') {
      // Streamed until the server answers (it stops reading at the limit) or all is sent.
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let left = body;
      const pump = () => {
        while (left > 0) {
          left -= chunk.length;
          if (!r.write(chunk)) return void r.once('drain', pump);
        }
        r.end();
      };
      r.on('response', () => (left = 0));
      pump();
    } else r.end(body);
  });
}

const dirs: string[] = [];
let serve: ServeProcess | null = null;
let root = '';

beforeAll(async () => {
  if (!built) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-attacks-'));
  dirs.push(dir);
  root = path.join(dir, 'channel');
  fs.cpSync(path.join(VECTORS_DIR, '11-give-up-ack-reopen', 'channel'), root, { recursive: true });
  port = await freePort();
  serve = new ServeProcess({ channel: root, db: path.join(dir, 'index.sqlite'), port, staleAfterS: 300, env: { ...process.env, CLAIMBOARD_READ_TOKEN: TOKEN } });
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (serve.exited !== null) throw new Error(`serve exited:\n${serve.tail()}`);
    const r = await req('GET', '/api/board', auth).catch(() => null);
    if (r?.status === 200 && (JSON.parse(r.body) as { progress: { phase: string } }).progress.phase === 'ready') break;
    if (Date.now() > deadline) throw new Error(`not ready:\n${serve.tail()}`);
    await sleep(200);
  }
}, 150_000);
afterAll(async () => {
  await serve?.stop();
  killAll();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const jsonPost = (p: string, body: string | number, extra: Record<string, string> = {}) =>
  req('POST', p, { ...auth, 'Content-Type': 'application/json', Origin: `http://127.0.0.1:${port}`, ...extra }, body);

/** ops's acknowledgement of g1's give-up, signed as the page signs it: against the ledger line and the channel the served board names now. */
const ackG1 = async (): Promise<ActionRequest> => {
  const card = channelStateOf(root).orders.find((o) => o.order_id === 'g1');
  if (!card) throw new Error('no g1');
  const info = JSON.parse((await req('GET', '/api/operators/ops', auth)).body) as { ledger_prev: string; channel: string };
  return buildAction({ action: 'ack', card, note: 'seen' }, 'ops', (p) => naclSign(keys.ops?.seed ?? '', p), new Date().toISOString(), info.ledger_prev, info.channel);
};

describe.skipIf(!built)('claimboard serve under attack', () => {
  it('pages need the read token whatever the request says it is (a prefetch too)', async () => {
    for (const h of <Record<string, string>[]>[{}, { Purpose: 'prefetch' }, { 'next-router-prefetch': '1' }, { 'Sec-Purpose': 'prefetch' }, { RSC: '1', 'next-router-prefetch': '1' }]) {
      for (const p of ['/', '/orders/g1', '/problems']) {
        const r = await req('GET', p, h);
        expect([p, h, r.status]).toEqual([p, h, 401]);
        expect(r.body).not.toMatch(/g1|g2|g3/);
      }
    }
    expect((await req('GET', '/', auth)).status).toBe(200);
  });

  it('answers only the hosts it serves: another Host (DNS rebinding) is refused before any route, a matching Origin does not help', async () => {
    for (const p of ['/', '/api/board', '/metrics', '/api/operators/ops', '/api/demo-key', `/api/orders/g1`]) {
      const r = await req('GET', p, { ...auth, Host: `evil.example:${port}` });
      expect([p, r.status]).toEqual([p, 421]);
      expect(r.body).not.toMatch(/g1|ledger_prev|seed/);
    }
    const before = folderSnapshot(root);
    const forged = await jsonPost('/api/actions', JSON.stringify(await ackG1()), { Host: 'evil.example', Origin: 'http://evil.example' });
    expect(forged.status).toBe(421);
    const crossOrigin = await jsonPost('/api/actions', JSON.stringify(await ackG1()), { Origin: 'http://evil.example' });
    expect([crossOrigin.status, (JSON.parse(crossOrigin.body) as { message: string }).message]).toEqual([403, 'cross-origin request refused (origin http://evil.example)']);
    expect(folderSnapshot(root)).toEqual(before);
    expect((await req('GET', '/api/board', { ...auth, Host: `localhost:${port}` })).status).toBe(200);
  });

  it('answers malformed paths and JSON nested too deep with 400, and a body over the limit with 413 without keeping it', async () => {
    for (const p of ['/%', '/%zz', '/%c0%ae', '/api/orders/%', '/api/orders/%c0%ae', '/orders/%zz']) {
      expect([p, (await req('GET', p, auth)).status]).toEqual([p, 400]);
    }
    const deep = `{"action":"ack","record":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const d = await jsonPost('/api/actions', deep, { 'X-Claimboard-Client': 'forged' });
    expect([d.status, (JSON.parse(d.body) as { message: string }).message]).toEqual([400, 'the body nests deeper than 64 levels']);
    // Declared too large: refused at the door; streamed without a length: refused at the limit.
    const declared = await req('POST', '/api/actions', { ...auth, 'Content-Type': 'application/json', 'Content-Length': String(200 * 1024 * 1024) }, '');
    expect(declared.status).toBe(413);
    const streamed = await jsonPost('/api/actions/bulk', MAX_POST_BODY_BYTES + 8 * 1024 * 1024);
    expect(streamed.status).toBe(413);
    expect((await req('GET', '/api/board', auth)).status).toBe(200);
  });

  it("reads an operator's ledger file by the indexer's rules: a symlink (to a file or a FIFO) is not followed, and an act over it writes nothing", async () => {
    const ledger = path.join(root, 'ledger.ops.jsonl');
    fs.symlinkSync('/etc/passwd', ledger);
    const info = JSON.parse((await req('GET', '/api/operators/ops', auth)).body) as { ledger_prev: string; ledger_problem: string | null };
    expect(info).toMatchObject({ ledger_prev: '', ledger_problem: 'ledger.ops.jsonl is not read: a symlink; not followed' });
    const before = folderSnapshot(root);
    const act = await jsonPost('/api/actions', JSON.stringify(await ackG1()));
    expect([act.status, (JSON.parse(act.body) as { message: string }).message]).toEqual([409, 'ledger.ops.jsonl is not read: a symlink; not followed; nothing was written']);
    expect(folderSnapshot(root)).toEqual(before);
    fs.unlinkSync(ledger);
    const fifo = path.join(dirs[0] as string, 'fifo');
    fs.rmSync(fifo, { force: true });
    const { spawnSync } = await import('node:child_process');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    fs.symlinkSync(fifo, ledger);
    const viaFifo = await req('GET', '/api/operators/ops', auth, undefined, 10_000);
    expect(viaFifo.status).toBe(200);
    fs.unlinkSync(ledger);
    fs.renameSync(fifo, ledger); // a FIFO in place of the file itself
    const fifoItself = JSON.parse((await req('GET', '/api/operators/ops', auth, undefined, 10_000)).body) as { ledger_problem: string | null };
    expect(fifoItself.ledger_problem).toBe('ledger.ops.jsonl is not read: not a regular file');
    fs.unlinkSync(ledger);
  });

  it('an act signed for another channel is refused (403) though the operator ledger there ends with the same line: the folder is byte-identical', async () => {
    // Channel A: another copy of vector 11, named by its own id, where ops reopened g2.
    const a = path.join(dirs[0] as string, 'channel-a');
    fs.cpSync(path.join(VECTORS_DIR, '11-give-up-ack-reopen', 'channel'), a, { recursive: true });
    nameChannel(a, 'channel-a-0001');
    const signForA = (input: (c: ReturnType<typeof channelStateOf>) => Parameters<typeof buildAction>[0]) =>
      buildAction(input(channelStateOf(a)), 'ops', (p) => naclSign(keys.ops?.seed ?? '', p), new Date().toISOString(), ledgerPrevOf(path.join(a, 'ledger.ops.jsonl')).prev, 'channel-a-0001');
    const cardIn = (s: ReturnType<typeof channelStateOf>, id: string) => s.orders.find((o) => o.order_id === id) ?? (() => { throw new Error(`no ${id}`); })();
    const ctxA = { root: a, nowMs: Date.now(), staleAfterMs: 300_000, operators: [], verify: nodeVerify };
    expect(applyAction(signForA((s) => ({ action: 'reopen', card: cardIn(s, 'g2'), reason: 'once more' })), ctxA).status).toBe(201);
    // The served channel's ledger of ops ends with that same line (a copy of A's ledger, as a sync would bring it).
    fs.copyFileSync(path.join(a, 'ledger.ops.jsonl'), path.join(root, 'ledger.ops.jsonl'));
    const served = JSON.parse((await req('GET', '/api/operators/ops', auth)).body) as { ledger_prev: string; channel: string };
    expect(served.ledger_prev).toBe(ledgerPrevOf(path.join(a, 'ledger.ops.jsonl')).prev);
    expect(served.channel).not.toBe('channel-a-0001');

    // ops's acknowledgement of g1 signed in A: everything but the channel matches what the served board would take.
    const replay = signForA((s) => ({ action: 'ack', card: cardIn(s, 'g1'), note: 'seen' }));
    const before = folderSnapshot(root);
    const r = await jsonPost('/api/actions', JSON.stringify(replay));
    expect([r.status, (JSON.parse(r.body) as { message: string }).message]).toEqual([
      403,
      `the ack record was signed for channel channel-a-0001, not this channel (${served.channel}): an act is applied only to the channel it was signed for`,
    ]);
    const bulk = await jsonPost('/api/actions/bulk', JSON.stringify({ actions: [replay] }));
    expect([bulk.status, (JSON.parse(bulk.body) as { results: { status: number }[] }).results.map((x) => x.status)]).toEqual([200, [403]]);
    expect(folderSnapshot(root)).toEqual(before);
    // In A, the channel it was signed for, the same request is taken.
    expect(applyAction(replay, ctxA)).toMatchObject({ status: 201, written: ['tasks/g1/ack.ops.json', 'ledger.ops.jsonl'] });
  });

  it("unverified requests spend no operator's budget: after 40 claiming ops, ops's own signed act is applied", async () => {
    for (let i = 0; i < 40; i++) {
      const r = await jsonPost('/api/actions', JSON.stringify({ record: { signed_by: 'ops' } }));
      expect(r.status).toBe(400);
    }
    const act = await ackG1();
    const forged = await jsonPost('/api/actions', JSON.stringify({ ...act, record: { ...act.record, signature: 'ab'.repeat(64) } }));
    expect([forged.status, (JSON.parse(forged.body) as { message: string }).message]).toEqual([403, "the ack record's signature: invalid signature (signed_by ops)"]);
    const real = await jsonPost('/api/actions', JSON.stringify(act));
    expect([real.status, real.body]).toMatchObject([201, expect.stringContaining('tasks/g1/ack.ops.json')]);
    // The first act the served board took names its channel: the id it gave the page to sign for.
    const named = JSON.parse(fs.readFileSync(path.join(root, 'claimboard.channel.json'), 'utf8')) as { channel: string };
    expect([named.channel, (JSON.parse(real.body) as { written: string[] }).written]).toEqual([(JSON.parse(act.ledger_line) as { channel: string }).channel, ['claimboard.channel.json', 'tasks/g1/ack.ops.json', 'ledger.ops.jsonl']]);
  });
});

describe.skipIf(!built)('serve and its web process', () => {
  it('the web process stops when serve is killed, and a start names what holds its port', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-kill-'));
    dirs.push(dir);
    const channel = path.join(dir, 'channel');
    fs.cpSync(path.join(VECTORS_DIR, '06-stale-no-heartbeat', 'channel'), channel, { recursive: true });
    const p = await freePort();
    // Not ServeProcess: it kills serve's whole process group when serve exits, which would hide a web process left running.
    const first = spawn(process.execPath, [path.join(REPO, 'bin', 'claimboard.mjs'), 'serve', channel, '--port', String(p), '--host', '127.0.0.1', '--db', path.join(dir, 'index.sqlite')], {
      cwd: REPO,
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_OPTIONS: '' },
    });
    const pid = first.pid as number;
    const exited = new Promise<void>((r) => first.once('exit', () => r()));
    const alive = (x: number) => {
      try {
        process.kill(x, 0);
        return true;
      } catch {
        return false;
      }
    };
    let web: number[];
    try {
      port = p; // req() asks this serve from here on
      const deadline = Date.now() + 120_000;
      while ((await req('GET', '/api/board', {}).catch(() => null))?.status !== 200) {
        if (Date.now() > deadline) throw new Error('serve did not answer');
        await sleep(200);
      }
      web = descendants(pid);
      expect(web.length).toBeGreaterThan(0);
      process.kill(pid, 'SIGKILL');
      await exited;
      await until(() => !web.some(alive), 60_000);
      expect(web.filter(alive)).toEqual([]);
    } finally {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }

    // The port held by something else: the start says by what, and exits 1.
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(p, '127.0.0.1', () => r()));
    try {
      const second = new ServeProcess({ channel, db: path.join(dir, 'index.sqlite'), port: p, staleAfterS: 300 });
      await second.exitP;
      expect(second.exited).toBe(1);
      expect(second.tail()).toContain(`port ${p} on 127.0.0.1 is already in use, held by pid ${process.pid} (`);
    } finally {
      holder.close();
    }
  });
});

describe.skipIf(!built)('folders the served board cannot list', () => {
  it('are problem rows and the board says it is not whole (index_health folder_unreadable) until they can be listed again', async () => {
    // As root every folder can be listed: serve runs then without any capability (setpriv; still
    // uid 0, so the checkout stays readable wherever it lies, but a mode of 000 holds).
    const asRoot = process.getuid?.() === 0;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-unlisted-'));
    dirs.push(dir);
    fs.chmodSync(dir, 0o755);
    const channel = path.join(dir, 'channel');
    fs.cpSync(path.join(VECTORS_DIR, '11-give-up-ack-reopen', 'channel'), channel, { recursive: true });
    const { spawnSync } = await import('node:child_process');
    // The CLI bundle made fresh first, with every capability.
    expect(spawnSync(process.execPath, [path.join(REPO, 'bin', 'claimboard.mjs'), '--version']).status).toBe(0);
    fs.chmodSync(path.join(channel, 'tasks', 'g1'), 0o000);
    port = await freePort();
    const s = new ServeProcess({
      channel,
      db: path.join(dir, 'index.sqlite'),
      port,
      staleAfterS: 300,
      ...(asRoot ? { wrap: ['setpriv', '--bounding-set=-all', '--inh-caps=-all', '--ambient-caps=-all', '--'] } : {}),
      env: { ...process.env, HOME: dir },
    });
    const board = async () => JSON.parse((await req('GET', '/api/board')).body) as { index_health: { state: string; code?: string; reason?: string }; lanes: { count: number }[] };
    const problems = async () => (JSON.parse((await req('GET', '/api/problems')).body) as { problems: { path: string; detail: string }[] }).problems;
    const reaches = async (what: string, ok: () => Promise<boolean>) => {
      for (let i = 0; i < 300; i++) {
        if (await ok().catch(() => false)) return;
        if (s.exited !== null) throw new Error(`serve exited:\n${s.tail()}`);
        await sleep(200);
      }
      throw new Error(`${what}: not within 60 s\n${s.tail()}`);
    };
    try {
      await s.waitReady(120);
      await reaches('g1 unreadable', async () => (await board()).index_health.code === 'folder_unreadable');
      expect((await board()).index_health.reason).toBe('tasks/g1 cannot be listed: the board lacks what is in them');
      expect((await problems()).filter((p) => p.path.startsWith('tasks/g1'))).toEqual([{ path: 'tasks/g1', problem: 'invalid', detail: 'cannot list it: EACCES; nothing in it is read' }]);

      fs.chmodSync(path.join(channel, 'tasks', 'g1'), 0o755);
      fs.chmodSync(path.join(channel, 'tasks'), 0o000);
      await reaches('tasks unreadable', async () => (await board()).index_health.reason === 'tasks cannot be listed: the board lacks what is in them');
      expect((await problems()).filter((p) => p.path.startsWith('tasks'))).toEqual([{ path: 'tasks', problem: 'invalid', detail: 'cannot list it: EACCES; nothing in it is read' }]);

      fs.chmodSync(path.join(channel, 'tasks'), 0o755);
      await reaches('listable again', async () => (await board()).index_health.state === 'ok');
      await reaches('the orders back', async () => (await board()).lanes.reduce((n, l) => n + l.count, 0) === 3);
      expect((await problems()).filter((p) => p.path.startsWith('tasks'))).toEqual([]);
    } finally {
      await s.stop();
    }
  }, 240_000);
});
