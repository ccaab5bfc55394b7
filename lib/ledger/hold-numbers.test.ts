/**
 * The numbers beside the fleet history (hold-numbers.ts) on holds written out here, every instant
 * in minutes on this machine's clock: what each agent held in a window, how long, how long silent,
 * how its holds ended; how stale claims came out and how long a person took; work done twice.
 */
import { describe, expect, it } from 'vitest';
import { agentNumbers, fleetNumbers, staleOutcome, type HistoryWindow } from './hold-numbers';
import type { HoldRow } from './holds';

const M = 60_000;
const STALE = 5 * M;

const row = (h: Partial<HoldRow> & Pick<HoldRow, 'order_id' | 'agent' | 'claimed_ms' | 'ending'>): HoldRow => ({
  project_id: 'demo',
  run: null,
  claimed_at: '2026-11-20T09:05:00Z',
  ended_ms: null,
  ended_at: null,
  ended_by: null,
  reason: '',
  beat_ms: null,
  beat_at: null,
  delivered: false,
  silences: [],
  silent_ms: 0,
  ...h,
});

// The window: minute 100 to minute 200; now: minute 250.
const W: HistoryWindow = { from_ms: 100 * M, to_ms: 200 * M };
const NOW = 250 * M;

const rows: HoldRow[] = [
  // fang: o1 from 50 to 150 (50 min in the window), finished; o2 from 180, held (20 min in the window),
  // silent from 185 to now (15 min in the window).
  row({ order_id: 'o1', agent: 'fang', claimed_ms: 50 * M, ending: 'finished', ended_ms: 150 * M, delivered: true }),
  row({ order_id: 'o2', agent: 'fang', claimed_ms: 180 * M, ending: 'held', silences: [{ from_ms: 185 * M, to_ms: NOW }] }),
  // wisp: o1 too (work done twice), re-queued by ops at 140 after a silence from 110 (stale at 115: 25 min to the act).
  row({ order_id: 'o1', agent: 'wisp', claimed_ms: 100 * M, ending: 'requeued', ended_ms: 140 * M, ended_by: 'ops', delivered: true, silences: [{ from_ms: 110 * M, to_ms: 140 * M }] }),
  // nebra: a silence from 120 to 130 that its heartbeat ended (recovered), then its own release at 160 after another from 140.
  row({
    order_id: 'o3',
    agent: 'nebra',
    claimed_ms: 115 * M,
    ending: 'released_self',
    ended_ms: 160 * M,
    ended_by: 'nebra',
    silences: [
      { from_ms: 120 * M, to_ms: 130 * M },
      { from_ms: 140 * M, to_ms: 160 * M },
    ],
  }),
  // Outside the window: ended before it began, claimed after it ended.
  row({ order_id: 'o4', agent: 'fang', claimed_ms: 10 * M, ending: 'gave_up', ended_ms: 99 * M }),
  row({ order_id: 'o5', agent: 'wisp', claimed_ms: 200 * M, ending: 'held' }),
];

describe('agentNumbers', () => {
  it('per agent: orders held in the window, how each hold ended in it, time held and silent within it', () => {
    const none = { held: 0, finished: 0, released_self: 0, requeued: 0, retired: 0, gave_up: 0, superseded: 0, lost: 0 };
    expect(agentNumbers(rows, W, NOW)).toEqual([
      { agent: 'fang', orders: 2, endings: { ...none, finished: 1, held: 1 }, held_ms: 50 * M + 20 * M, silent_ms: 15 * M },
      { agent: 'nebra', orders: 1, endings: { ...none, released_self: 1 }, held_ms: 45 * M, silent_ms: 30 * M },
      { agent: 'wisp', orders: 1, endings: { ...none, requeued: 1 }, held_ms: 40 * M, silent_ms: 30 * M },
    ]);
  });

  it('a hold that ended after the window counts as held in it', () => {
    const late = row({ order_id: 'o6', agent: 'fang', claimed_ms: 150 * M, ending: 'finished', ended_ms: 230 * M });
    expect(agentNumbers([late], W, NOW)[0]?.endings.held).toBe(1);
    expect(agentNumbers([late], W, NOW)[0]?.endings.finished).toBe(0);
    expect(agentNumbers([late], W, NOW)[0]?.held_ms).toBe(50 * M);
  });
});

describe('staleOutcome and fleetNumbers', () => {
  it('each silence that reached stale_after: acted on, recovered, ended by the agent, or still waiting', () => {
    const [, o2, wisp, nebra] = rows as [HoldRow, HoldRow, HoldRow, HoldRow];
    expect(staleOutcome(wisp, wisp.silences[0] as never, NOW, STALE)).toEqual({ kind: 'acted', ms: 25 * M });
    expect(staleOutcome(nebra, nebra.silences[0] as never, NOW, STALE)).toEqual({ kind: 'recovered', ms: 5 * M });
    expect(staleOutcome(nebra, nebra.silences[1] as never, NOW, STALE)).toEqual({ kind: 'ended_by_agent', ms: 15 * M });
    expect(staleOutcome(o2, o2.silences[0] as never, NOW, STALE)).toEqual({ kind: 'waiting', ms: 60 * M });
  });

  it('fleet-wide: holds in the window, stale claims turned stale in it and how they came out, work done twice', () => {
    expect(fleetNumbers(rows, W, NOW, STALE)).toEqual({
      holds: 4,
      // turned stale at 115 (wisp), 125 and 145 (nebra), 190 (fang's o2)
      stale: { went_stale: 4, acted: 1, recovered: 1, ended_by_agent: 1, waiting: 1, until_act_p50_ms: 25 * M, until_act_max_ms: 25 * M, longest_wait_ms: 60 * M },
      twice: { orders: 1, order_ids: ['o1'] },
    });
  });

  it('a silence that turned stale outside the window is not counted', () => {
    const early = row({ order_id: 'o7', agent: 'fang', claimed_ms: 60 * M, ending: 'requeued', ended_ms: 120 * M, silences: [{ from_ms: 70 * M, to_ms: 120 * M }] });
    expect(fleetNumbers([early], W, NOW, STALE).stale.went_stale).toBe(0);
    expect(fleetNumbers([early], W, NOW, STALE).holds).toBe(1);
  });
});
