/**
 * `node --conditions=react-server --import tsx bench/due-rate.ts <channel> <index.sqlite> [--stale-after S]`:
 * what the indexer's pass over the orders going stale costs, the moment many go stale together
 * (a machine cut off: every order its agents hold stops hearing heartbeats at once). On a channel
 * the bench generated and an index of it (a copy is used; the one given is not changed): the
 * plan's live heartbeats are rewritten now, a warm start takes them in, then the clock is moved
 * past stale_after and the folders whose cards are due are passed again, timed (wall and this
 * thread's CPU). Asserts nothing; restores nothing (the heartbeats stay rewritten).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openWriter } from '../lib/index/db';
import { Indexer } from '../lib/index/indexer';
import { readPlan, refreshLiveHeartbeats, type Generated } from './generate';

const [root, dbArg] = process.argv.slice(2);
if (!root || !dbArg) {
  process.stderr.write('usage: bench/due-rate.ts <channel> <index.sqlite> [--stale-after S]\n');
  process.exit(2);
}
const k = process.argv.indexOf('--stale-after');
const staleAfterMs = (k > 0 ? Number(process.argv[k + 1]) : 120) * 1000;
const meta = JSON.parse(fs.readFileSync(`${root}.json`, 'utf8')) as Generated;
const live = refreshLiveHeartbeats({ ...meta, root }, readPlan({ ...meta, root }));
const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cb-due-')), 'index.sqlite');
fs.copyFileSync(dbArg, copy);
let ahead = 0;
const ix = new Indexer({ root, db: openWriter(copy), staleAfterMs, watch: false, clock: () => Date.now() + ahead, log: () => {} });
await ix.start();
ahead = 2 * staleAfterMs + 60_000;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
// The scheduler's stale timer would call this; the bench calls it at once.
(ix as unknown as { passDue(): void }).passDue();
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
process.stdout.write(`${live} live heartbeats rewritten; due pass: ${ms.toFixed(0)} ms wall, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU (${(ms * 1000 / live).toFixed(0)} µs an order)\n`);
await ix.stop();
fs.rmSync(path.dirname(copy), { recursive: true, force: true });
