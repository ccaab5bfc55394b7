/**
 * The demo's reaper story: written into a real demo channel, its two runs name
 * pids that were real processes here and are gone (kill(pid, 0) says ESRCH); the fleet is told to
 * leave them (the manifest's abandoned); a second start writes nothing. Then the reaper's own pass
 * (lib/reaper/reap.ts, as serve runs it) resets heron's run (heron's release verifies, the order is
 * Open) and holds lynx's (nothing written, the hold recorded for the board).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDemoManifest } from './manifest';
import { ensureDemoChannel } from './scenario';
import { ensureReaperStory, REAPER_STORY } from './reaper-story';
import { readKeyFile } from './identity';
import { channelStateOf } from '../index/channel-state';
import { reapOnce } from '../reaper/reap';
import { readHolds } from '../local/reaper-state';
import { folderSnapshot } from '../../test/support/folder';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-reaper-story-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

describe('the demo reaper story', () => {
  it('two dead runs of two local workers; reset releases one (Open), hold holds the other; written once', async () => {
    const demo = ensureDemoChannel(path.join(tmp, 'demo'));
    const story = await ensureReaperStory(demo.dir);
    expect(story.written).toBe(true);
    expect(story.reaps).toEqual([
      { agent: 'heron', key: path.join(demo.keysDir, 'heron.key'), policy: 'reset' },
      { agent: 'lynx', key: path.join(demo.keysDir, 'lynx.key'), policy: 'hold' },
    ]);
    const STALE_MS = 300;
    const before = channelStateOf(demo.dir, { staleAfterMs: 300_000 });
    for (const s of REAPER_STORY) {
      const c = before.orders.find((o) => o.order_id === s.order);
      expect([c?.state, c?.holder]).toEqual(['claimed', s.agent]);
      expect(gone(c?.heartbeat?.pid ?? 0)).toBe(true);
      expect(readDemoManifest(demo.dir).abandoned).toContain(`${s.order}/${s.agent}`);
    }
    expect(before.problems.filter((p) => REAPER_STORY.some((s) => p.path.includes(s.order) || p.path.includes(s.agent)))).toEqual([]);

    // A second start: nothing written.
    const snap = folderSnapshot(demo.dir);
    expect((await ensureReaperStory(demo.dir)).written).toBe(false);
    expect(folderSnapshot(demo.dir)).toEqual(snap);

    // The reaper's passes, as serve runs them (stale after 300 ms here, 30 s in the demo).
    await sleep(STALE_MS + 100);
    const stateDir = path.join(tmp, 'state');
    const outcomes = story.reaps.map((r) =>
      reapOnce({ root: demo.dir, agent: r.agent, seedHex: readKeyFile(r.key), policy: r.policy, dryRun: false, staleAfterMs: STALE_MS, stateDir, engine: null, host: 'demo-host' }).outcomes.map((o) => [o.order_id, o.done]),
    );
    expect(outcomes).toEqual([[['reindex-search-212', 'released']], [['migrate-billing-88', 'held']]]);
    const after = channelStateOf(demo.dir, { staleAfterMs: STALE_MS });
    const reset = after.orders.find((o) => o.order_id === 'reindex-search-212');
    expect([reset?.state, reset?.holder]).toEqual(['open', null]);
    expect(after.problems.filter((p) => p.path.includes('reindex-search-212') || p.path.includes('heron'))).toEqual([]);
    expect(readHolds(stateDir, demo.dir).map((h) => [h.order_id, h.agent, h.verdict])).toEqual([['migrate-billing-88', 'lynx', 'dead']]);
  });
});
