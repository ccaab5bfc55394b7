/**
 * The local overlay against real processes: a card held by a local agent gets this
 * machine's verdict on its heartbeat's pid (alive while the child runs, dead once it is killed and
 * collected), and the Stale reason's detail on a stale card; another machine's agent gets no
 * `local` field; with no local agent the answers are the very same bytes. (The reaper's holds are
 * the index's, not the overlay's: local-holds.test.ts.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openMemory } from '../db';
import { LocalOverlay } from './local-overlay';
import type { BoardCard, BoardResponse } from '../types';
import { localAgentsOf } from '../../local/liveness';
import { ChannelBuilder } from '../../../test/support/channel-builder';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

async function startChild(): Promise<ChildProcess> {
  const c = spawn(process.execPath, ['-e', 'setInterval(()=>{},1000)'], { stdio: 'ignore' });
  children.push(c);
  await new Promise<void>((r) => c.once('spawn', () => r()));
  return c;
}

/**
 * An order claimed by `holder`, its heartbeat naming `pid`. The builder's clock is 5 s ahead and
 * the heartbeat 4 s old on it, so it arrived 1 s after now: after any child started here (a run's
 * process starts before its heartbeat). `staleAfterS` 2 makes it stale (4 s > 2 s), 300 fresh.
 */
function cardWith(holder: string, pid: number, staleAfterS = 300): BoardCard {
  const b = new ChannelBuilder(Date.now() + 5000).roster().order('o').claim('o', holder, { age: 4 });
  b.json('tasks/o/heartbeat.' + holder + '.json', { order_id: 'o', agent: holder, run: 'r1', pid, at: '2026-11-20T09:06:00Z' }, { age: 4 });
  return b.card('o', { staleAfterS });
}

function boardOf(cards: BoardCard[]): BoardResponse {
  return {
    channel: '/c',
    now_ms: 1,
    stale_after_ms: 300_000,
    progress: { phase: 'ready', files_seen: 1, files_read: 1, files_verified: 1, ready_at_ms: 1 },
    actions_enabled: true,
    lanes: [{ lane: 'running', count: cards.length, cards, next_cursor: null }],
    problem_count: 0,
    agents: [],
    key_changes: [],
  };
}

const emptyStateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-overlay-'));
afterAll(() => fs.rmSync(emptyStateDir, { recursive: true, force: true }));

describe('LocalOverlay', () => {
  it("a local agent's living child is alive, then dead once killed; another machine's agent gets no local field", async () => {
    const db = openMemory();
    const child = await startChild();
    const pid = child.pid ?? 0;
    const overlay = new LocalOverlay({ local: localAgentsOf({ localAgents: ['fang'] }), stateDir: emptyStateDir, channel: '/c', reuseMs: 0 });
    const alive = overlay.card(db, cardWith('fang', pid), Date.now());
    expect(alive.local).toEqual({ verdict: 'alive', pid, text: `alive: pid ${pid} is running here (slow, not orphaned)` });
    // Fresh heartbeat: the order is claimed, not stale, so no Stale detail.
    expect(alive.stale_detail).toBeUndefined();
    const other = overlay.card(db, cardWith('wisp', pid), Date.now());
    expect('local' in other).toBe(false);

    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGKILL');
    await exited;
    const dead = overlay.card(db, cardWith('fang', pid), Date.now());
    expect(dead.local).toEqual({ verdict: 'dead', pid, text: `dead: pid ${pid} is gone on this machine` });
  });

  it('a stale card gets the detail: dead_local for a killed child, alive_local for a living one', async () => {
    const db = openMemory();
    const overlay = new LocalOverlay({ local: localAgentsOf({ localAgents: ['fang'] }), stateDir: emptyStateDir, channel: '/c', reuseMs: 0 });
    const living = await startChild();
    const slow = cardWith('fang', living.pid ?? 0, 2);
    expect(slow.state).toBe('stale');
    expect(overlay.card(db, slow, Date.now()).stale_detail).toBe('alive_local');
    const gone = await startChild();
    const exited = new Promise<void>((r) => gone.once('exit', () => r()));
    gone.kill('SIGKILL');
    await exited;
    const dead = overlay.card(db, cardWith('fang', gone.pid ?? 0, 2), Date.now());
    expect([dead.local?.verdict, dead.stale_detail]).toEqual(['dead', 'dead_local']);
  });

  it('with no local agent, the board and order answers are the same bytes', async () => {
    const db = openMemory();
    const child = await startChild();
    const overlay = new LocalOverlay({ local: localAgentsOf({}), stateDir: emptyStateDir, channel: '/c' });
    const b = boardOf([cardWith('fang', child.pid ?? 0)]);
    const before = JSON.stringify(b);
    expect(JSON.stringify(overlay.board(db, b, Date.now()))).toBe(before);
    const order = JSON.stringify({ card: cardWith('fang', child.pid ?? 0), now_ms: 5 });
    expect(overlay.orderJson(db, order, Date.now())).toBe(order);
  });

  it("a local agent's order answer carries the sentence; a non-local holder's answer is unchanged", async () => {
    const db = openMemory();
    const child = await startChild();
    const pid = child.pid ?? 0;
    const overlay = new LocalOverlay({ local: localAgentsOf({ localAgents: ['fang'] }), stateDir: emptyStateDir, channel: '/c' });
    const theirs = JSON.stringify({ card: cardWith('wisp', pid), now_ms: 5 });
    expect(overlay.orderJson(db, theirs, Date.now())).toBe(theirs);
    const ours = JSON.parse(overlay.orderJson(db, JSON.stringify({ card: cardWith('fang', pid), now_ms: 5 }), Date.now())) as { card: BoardCard; now_ms: number };
    expect([ours.card.local?.text, ours.now_ms]).toEqual([`alive: pid ${pid} is running here (slow, not orphaned)`, 5]);
  });
});
