/**
 * API latency: the endpoints the bench requests (the board, a lane of an agent, an order, the
 * fleet's holds of 30 days page by page), the paths each rotates through, and the two measures,
 * one client one request at a time (no load) and many keep-alive clients for a while (under load).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { ALIVE } from './generate';
import { get, sec } from './harness';

export type Endpoint = 'board' | 'lane' | 'order' | 'holds';
export const ENDPOINTS: readonly Endpoint[] = ['board', 'lane', 'order', 'holds'];
const LOAD_LANES = ['running', 'done', 'attention', 'stale', 'queue', 'review'];
/** The fleet history's window the bench asks for: the last 30 days (README target). */
export const HOLDS_BASE = '/api/holds?range=30d';
/** The paths the `holds` requests rotate through: set by holdsPages before the API steps. */
let holdsPaths: string[] = [HOLDS_BASE];
/** The s-th request path of an endpoint kind (lanes, agents, order ids and hold pages rotate). */
function endpointPath(kind: Endpoint, s: number, n: number, orderIdOf: (i: number) => string): string {
  return kind === 'board' ? '/api/board'
    : kind === 'lane' ? `/api/board?lane=${LOAD_LANES[s % LOAD_LANES.length]}&agent=${ALIVE[(s * 7) % ALIVE.length]}`
    : kind === 'holds' ? (holdsPaths[((s * 2654435761) >>> 0) % holdsPaths.length] as string)
    : `/api/orders/${orderIdOf(Math.floor(((s * 2654435761) >>> 0) % n))}`;
}

/**
 * Walks GET /api/holds for the 30-day window page by page (200 holds a page) and sets the paths the
 * load rotates through: every page of it (by its cursor), and each live agent's first page.
 * Returns how many holds the window has and in how many pages.
 */
export async function holdsPages(port: number): Promise<{ holds: number; pages: number; walkMs: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const t = performance.now();
  const paths = [HOLDS_BASE, ...ALIVE.map((a) => `${HOLDS_BASE}&agent=${a}`)];
  let holds = 0;
  let pages = 0;
  try {
    let cursor: string | null = null;
    do {
      const p: string = cursor ? `${HOLDS_BASE}&cursor=${cursor}` : HOLDS_BASE;
      const r = await get(port, p, agent, 60_000);
      if (r.status !== 200) throw new Error(`GET ${p}: ${r.status} ${r.body.slice(0, 200)}`);
      const page = JSON.parse(r.body) as { holds: unknown[]; next_cursor: string | null };
      if (cursor) paths.push(p);
      holds += page.holds.length;
      pages++;
      cursor = page.next_cursor;
    } while (cursor !== null);
  } finally {
    agent.destroy();
  }
  holdsPaths = paths;
  return { holds, pages, walkMs: performance.now() - t };
}

/** One client, one request at a time: what a request costs with no queue, and how big the answers are. */
export async function apiUnloaded(port: number, kinds: readonly Endpoint[], n: number, each: number, orderIdOf: (i: number) => string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const out = {} as Record<Endpoint, { ms: number[]; bytes: number }>;
  try {
    for (const kind of kinds) {
      const ms: number[] = [];
      let bytes = 0;
      for (let s = 0; s < each; s++) {
        const t = performance.now();
        const r = await get(port, endpointPath(kind, s, n, orderIdOf), agent, 30_000);
        ms.push(performance.now() - t);
        bytes += Buffer.byteLength(r.body);
      }
      out[kind] = { ms, bytes: bytes / each };
    }
  } finally {
    agent.destroy();
  }
  return out;
}

export async function apiLoad(port: number, kinds: readonly Endpoint[], n: number, clients: number, seconds: number, orderIdOf: (i: number) => string) {
  const lat: Record<Endpoint, number[]> = { board: [], lane: [], order: [], holds: [] };
  const errors: Record<Endpoint, number> = { board: 0, lane: 0, order: 0, holds: 0 };
  const deadline = performance.now() + seconds * 1000;
  let seq = 0;
  const client = async (c: number) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let j = 0; performance.now() < deadline; j++) {
        const kind = kinds[(c + j) % kinds.length] as Endpoint;
        const s = seq++;
        const p = endpointPath(kind, s, n, orderIdOf);
        const t = performance.now();
        try {
          const r = await get(port, p, agent, 30_000);
          if (r.status !== 200) errors[kind]++;
        } catch {
          errors[kind]++;
        }
        lat[kind].push(performance.now() - t);
      }
    } finally {
      agent.destroy();
    }
  };
  const t = performance.now();
  await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  const wall = sec(performance.now() - t);
  return { lat, errors, wall };
}
