/**
 * A card stale by its run (`run_lane: 'stale'`: the holder's run of the next revision of a
 * changes-requested order) must change its stale reason with its holder's activity elsewhere, as
 * a fresh derivation does (lib/ledger/derive.ts withChannelFacts: `state === 'stale' || run_lane
 * === 'stale'`):
 *
 * 1. fang's rerun heartbeat stops while fang still heartbeats another order: heartbeat_lapsed;
 *    then fang falls silent everywhere: agent_silent (the fresh derivation says so; the index
 *    keeps heartbeat_lapsed: lib/index/writer/facts.ts settle() gives the flip a next_ms only when
 *    `fixed.state === 'stale'`);
 * 2. fang then writes again elsewhere: heartbeat_lapsed again (the index keeps agent_silent:
 *    facts.ts updateTouchedWriters() touches only orders whose `info.state === 'stale'`).
 *
 * Each in both orders (active elsewhere then silent; silent first then active elsewhere), and
 * the same for a plain stale card (state 'stale') as a control: four cases, about 14 s; today the
 * controls pass and the two run-lane cases fail. Real files, the real Indexer (folder events off;
 * each write is requested, as a nudge does), stale_after 1 s, this machine's clock.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory } from '../../lib/index/db';
import { Indexer } from '../../lib/index/indexer';
import { channelStateOf } from '../../lib/index/channel-state';
import { naclPublicKey } from '../../lib/ledger/nacl-verify';
import { seedOf } from '../support/channel-builder';
import type { Identity } from '../../lib/demo/identity';
import { writeAgent, writeClaim, writeHeartbeat, writeOrder, writeResult, writeReview } from '../../lib/demo/write';

const STALE_MS = 1000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const who = (name: string): Identity => ({ name, seedHex: seedOf(name) });
const ops = who('ops');
const fang = who('fang');
const run = { run: 'a'.repeat(32), pid: 4242 };
const other = { run: 'b'.repeat(32), pid: 4343 };

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

async function scenario(rerun: boolean, silentFirst = false) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-runlane-'));
  dirs.push(root);
  writeAgent(root, { name: 'ops', role: 'operator', publicKey: naclPublicKey(ops.seedHex) });
  writeAgent(root, { name: 'fang', role: 'worker', publicKey: naclPublicKey(fang.seedHex) });
  // x: fang's run (a rerun of a sent-back revision, or a first run); y: fang's other run, kept alive.
  writeOrder(root, ops, { id: 'x', project_id: 'p', payload: { t: 1 }, requires_review: rerun });
  writeClaim(root, fang, 'x');
  if (rerun) {
    writeResult(root, fang, 'x', 1, { s: 1 });
    writeReview(root, ops, 'x', 1, false, 'again');
  }
  writeHeartbeat(root, fang, 'x', run);
  writeOrder(root, ops, { id: 'y', project_id: 'p', payload: { t: 2 } });
  writeClaim(root, fang, 'y');
  writeHeartbeat(root, fang, 'y', other);
  const db = openMemory();
  const ix = new Indexer({ root, db, staleAfterMs: STALE_MS, watch: false });
  await ix.start();
  const card = () => JSON.parse((db.prepare("SELECT card FROM cards WHERE order_id = 'x'").get() as { card: string }).card) as { state: string; run_lane?: string; reason?: string };
  const fresh = () => channelStateOf(root, { nowMs: Date.now(), staleAfterMs: STALE_MS }).orders.find((c) => c.order_id === 'x');
  const beatY = () => {
    writeHeartbeat(root, fang, 'y', other);
    ix.request('tasks/y');
  };
  try {
    if (silentFirst) {
      // Nothing for 1.8 s: x goes stale with fang silent everywhere (agent_silent); then fang writes elsewhere.
      await sleep(1800);
      const silent = { index: card().reason, fresh: fresh()?.reason, state: card().state, run_lane: card().run_lane };
      beatY();
      await sleep(400);
      return { silent, back: { index: card().reason, fresh: fresh()?.reason } };
    }
    // 1. y keeps beating for 1.8 s: x's heartbeat lapses (1 s) while fang is alive elsewhere.
    for (let t = 0; t < 1800; t += 200) {
      beatY();
      await sleep(200);
    }
    const lapsed = { index: card().reason, fresh: fresh()?.reason, state: card().state, run_lane: card().run_lane };
    // fang falls silent everywhere: 1 s later every card of fang is agent_silent.
    await sleep(STALE_MS + 800);
    const silent = { index: card().reason, fresh: fresh()?.reason };
    // 2. fang writes again elsewhere: x's reason is heartbeat_lapsed again.
    beatY();
    await sleep(400);
    const back = { index: card().reason, fresh: fresh()?.reason };
    return { lapsed, silent, back };
  } finally {
    await ix.stop();
    db.close();
  }
}

describe("a stale card's reason follows its holder's activity elsewhere", () => {
  it('a plain stale card, silent first, then its holder writes elsewhere: the control', async () => {
    const r = await scenario(false, true);
    expect(r).toEqual({
      silent: { index: 'agent_silent', fresh: 'agent_silent', state: 'stale' },
      back: { index: 'heartbeat_lapsed', fresh: 'heartbeat_lapsed' },
    });
  });

  it('a card stale by its run, silent first, then its holder writes elsewhere', async () => {
    const r = await scenario(true, true);
    expect(r).toEqual({
      silent: { index: 'agent_silent', fresh: 'agent_silent', state: 'changes_requested', run_lane: 'stale' },
      back: { index: 'heartbeat_lapsed', fresh: 'heartbeat_lapsed' },
    });
  });

  it('a plain stale card (state stale): the control', async () => {
    const r = await scenario(false);
    expect(r.lapsed).toMatchObject({ index: 'heartbeat_lapsed', fresh: 'heartbeat_lapsed', state: 'stale' });
    expect(r.silent).toEqual({ index: 'agent_silent', fresh: 'agent_silent' });
    expect(r.back).toEqual({ index: 'heartbeat_lapsed', fresh: 'heartbeat_lapsed' });
  });

  it('a card stale by its run (changes_requested, run_lane stale)', async () => {
    const r = await scenario(true);
    expect(r).toEqual({
      lapsed: { index: 'heartbeat_lapsed', fresh: 'heartbeat_lapsed', state: 'changes_requested', run_lane: 'stale' },
      silent: { index: 'agent_silent', fresh: 'agent_silent' },
      back: { index: 'heartbeat_lapsed', fresh: 'heartbeat_lapsed' },
    });
  });
});
