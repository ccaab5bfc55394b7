/**
 * A child process for the crash tests (lib/index/crash.test.ts): indexes a channel into a
 * database file with the real openWriter and Indexer, and says what happens on stdout, one
 * line per event:
 *
 *   START              about to open the database
 *   REBUILD <why>      openWriter found the index unusable and is rebuilding it
 *   LOG <line>         the indexer's own progress lines
 *   READY              the first index is stored
 *   DONE               (--once) every folder looked at, stopped and closed cleanly
 *
 * Usage: node <its bundle, child-bundle.ts> --root DIR --db FILE --now MS [--once] [--rescan-ms N]
 * (or unbundled: node --conditions=react-server --import tsx test/support/index-worker.ts ...)
 *
 * Without --once it keeps following the folder (watcher and a frequent rescan) until killed.
 * The clock is fixed at --now so that every run derives at the same instant (and, injected, it
 * owns time: no clock step is seen however long the test takes).
 */
import { openWriter } from '../../lib/index/db';
import { Indexer, type IndexerOptions } from '../../lib/index/indexer';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const root = arg('root');
const file = arg('db');
const now = Number(arg('now'));
if (!root || !file || !Number.isFinite(now)) {
  console.error('usage: index-worker --root DIR --db FILE --now MS [--once] [--rescan-ms N]');
  process.exit(2);
}
const once = process.argv.includes('--once');
const say = (line: string) => process.stdout.write(line.replace(/\n/g, ' ') + '\n');

say('START');
const db = openWriter(file, (why) => say(`REBUILD ${why}`));
const options: IndexerOptions = {
  root,
  db,
  staleAfterMs: 300_000,
  clock: () => now,
  watch: !once,
  rescanMs: Number(arg('rescan-ms') ?? 250),
  workers: 0,
  log: (line: string) => say(`LOG ${line}`),
};
const ix = new Indexer(options);
await ix.start();
say('READY');
if (once) {
  // A warm start is ready before it looked at the finished orders' folders: those come next.
  while (ix.finishedPending) await new Promise((r) => setTimeout(r, 20));
  await ix.stop();
  db.close();
  say('DONE');
} else {
  // Follow the folder until killed: the rescan timer does not keep the process alive.
  setInterval(() => {}, 1 << 30);
}
