/**
 * The served board against a fresh index of the same folder: every card the board's answers hold
 * (`GET /api/board`, then each lane's pages through `next_cursor`) beside what the real CLI derives
 * from the folder alone right then (`claimboard state <channel> --json --now <the board's now_ms>`,
 * the same stale_after), per order: lane, state, holder, flags, latest revision, reason; and the
 * number of problems.
 */
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { get, REPO } from './proc';

/** The fields compared, per order. */
export interface CardFacts {
  readonly lane: string;
  readonly state: string;
  readonly holder: string | null;
  readonly flags: string;
  readonly latest_revision: number | null;
  readonly reason: string | null;
}

interface CardLike {
  readonly order_id: string;
  readonly lane: string;
  readonly state: string;
  readonly holder: string | null;
  readonly flags: readonly string[];
  readonly latest_revision: number | null;
  readonly reason?: string;
}
interface LanePageLike {
  readonly lane: string;
  readonly count: number;
  readonly cards: readonly CardLike[];
  readonly next_cursor: string | null;
}

const factsOf = (c: CardLike): CardFacts => ({
  lane: c.lane,
  state: c.state,
  holder: c.holder,
  flags: [...c.flags].sort().join(','),
  latest_revision: c.latest_revision,
  reason: c.reason ?? null,
});

/** Every card of the served board (all lanes, all pages), its `now_ms` and problem count. Throws on an HTTP error. */
export async function servedBoard(port: number): Promise<{ nowMs: number; problems: number; cards: Map<string, CardFacts>; laneCounts: Record<string, number> }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await get(port, '/api/board', agent);
    if (first.status !== 200) throw new Error(`/api/board: HTTP ${first.status}`);
    const b = JSON.parse(first.body) as { now_ms: number; problem_count: number; lanes: LanePageLike[] };
    const cards = new Map<string, CardFacts>();
    const laneCounts: Record<string, number> = {};
    for (const lane of b.lanes) {
      laneCounts[lane.lane] = lane.count;
      let page: LanePageLike = lane;
      for (let n = 0; ; n++) {
        for (const c of page.cards) cards.set(c.order_id, factsOf(c));
        if (!page.next_cursor || n > 10_000) break;
        const r = await get(port, `/api/board?lane=${lane.lane}&cursor=${encodeURIComponent(page.next_cursor)}`, agent);
        if (r.status !== 200) throw new Error(`/api/board?lane=${lane.lane}: HTTP ${r.status}`);
        page = JSON.parse(r.body) as LanePageLike;
      }
    }
    return { nowMs: b.now_ms, problems: b.problem_count, cards, laneCounts };
  } finally {
    agent.destroy();
  }
}

/** `claimboard state <channel> --json --now <nowMs> --stale-after <s>` through the real launcher: a derivation from the folder alone. */
export function freshState(channel: string, nowMs: number, staleAfterS: number): { problems: number; cards: Map<string, CardFacts> } {
  const r = spawnSync(process.execPath, [path.join(REPO, 'bin', 'claimboard.mjs'), 'state', channel, '--json', '--now', new Date(nowMs).toISOString(), '--stale-after', String(staleAfterS)], {
    cwd: REPO,
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
    timeout: 300_000,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  if (r.status !== 0) throw new Error(`claimboard state failed (${r.status}): ${r.stderr}`);
  const s = JSON.parse(r.stdout) as { orders: CardLike[]; problems: unknown[] };
  return { problems: s.problems.length, cards: new Map(s.orders.map((c) => [c.order_id, factsOf(c)])) };
}

/** Differences between two boards, in words (at most `max`), and how many orders differ. */
export function boardDifferences(
  served: { problems: number; cards: ReadonlyMap<string, CardFacts> },
  fresh: { problems: number; cards: ReadonlyMap<string, CardFacts> },
  max = 20,
): { differing: number; lines: string[] } {
  const lines: string[] = [];
  let differing = 0;
  const say = (s: string) => {
    differing++;
    if (lines.length < max) lines.push(s);
  };
  for (const [id, f] of fresh.cards) {
    const b = served.cards.get(id);
    if (!b) {
      say(`${id}: not on the board (fresh: ${f.lane}/${f.state})`);
      continue;
    }
    const diff = (Object.keys(f) as (keyof CardFacts)[]).filter((k) => f[k] !== b[k]);
    if (diff.length) say(`${id}: ${diff.map((k) => `${k} board=${String(b[k])} fresh=${String(f[k])}`).join(', ')}`);
  }
  for (const id of served.cards.keys()) if (!fresh.cards.has(id)) say(`${id}: on the board, not in the folder`);
  if (served.problems !== fresh.problems) lines.push(`problems: board ${served.problems}, fresh ${fresh.problems}`);
  return { differing: differing + (served.problems !== fresh.problems ? 1 : 0), lines };
}
