/**
 * Time passing on a test server without waiting for it. Each server the end-to-end tests start
 * runs with CLAIMBOARD_TEST_CLOCK_FILE (lib/index/steady-clock.ts): the ms written there count as
 * time that passed on this machine, so every file that arrived before ages by them at once while
 * files written afterwards arrive fresh. Stale thresholds stay far beyond any run's length, and a
 * test that needs a claim stale says so with `letTimePass`, whatever the machine's speed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BoardResponse } from '../lib/api/types';
import { get } from './http';

export interface TestClock {
  /** The server's base URL (http://127.0.0.1:<port>). */
  readonly url: string;
  /** The file named by the server's CLAIMBOARD_TEST_CLOCK_FILE. */
  readonly file: string;
  /** The channel it serves: a file is rewritten there so the indexer looks at its clock. */
  readonly channel: string;
  /** Headers for reading the board (a read token). */
  readonly headers?: Readonly<Record<string, string>>;
}

async function serverNow(c: TestClock): Promise<number> {
  const r = await get(`${c.url}/api/board`, c.headers);
  return ((await r.json()) as BoardResponse).now_ms;
}

/** The roster file rewritten (same bytes, a new file by rename, as Syncthing writes) to wake the indexer. */
function nudge(channel: string): void {
  const agents = path.join(channel, 'agents');
  const name = fs.readdirSync(agents).filter((f) => f.endsWith('.json')).sort()[0];
  if (name === undefined) throw new Error(`no roster file in ${agents} to rewrite`);
  const file = path.join(agents, name);
  const tmp = path.join(agents, `.${name}.nudge.tmp`);
  fs.copyFileSync(file, tmp);
  fs.renameSync(tmp, file);
}

/**
 * Adds `ms` to the test clock's advance without waiting: the indexer takes it at its next update,
 * before it reads the files of that update (so a file written just after arrives `ms` later than
 * it would have).
 */
export function addToTestClock(file: string, ms: number): void {
  let advanced = 0;
  try {
    advanced = Number(fs.readFileSync(file, 'latin1').trim()) || 0;
  } catch {
    // No advance yet.
  }
  fs.writeFileSync(file, String(advanced + ms));
}

/**
 * Lets `ms` pass on the server's clock (add at least the stale threshold to make every claim
 * written so far stale): resolves once the server's `now_ms` shows it. Every file the test wants
 * aged must already be on the board (one the indexer has not yet seen arrives after the advance).
 */
export async function letTimePass(c: TestClock, ms: number): Promise<void> {
  const before = await serverNow(c);
  addToTestClock(c.file, ms);
  const deadline = Date.now() + 60_000;
  for (;;) {
    nudge(c.channel);
    if ((await serverNow(c)) >= before + ms) return;
    if (Date.now() > deadline) throw new Error(`the server at ${c.url} did not take the test clock's advance of ${ms} ms within 60 s`);
    await new Promise((r) => setTimeout(r, 300));
  }
}
