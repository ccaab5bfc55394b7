/**
 * Crash safety of the index.
 *
 * A child process (test/support/index-worker.ts) indexes a generated channel of 300 orders into
 * a database file while this test keeps changing the folder; the child is killed with SIGKILL
 * at random points, during its first (cold) index, during restarts, and during incremental
 * updates, twenty times, and restarted each time on the same database. At the end the board
 * it holds must equal a clean rebuild of the final folder in a fresh database. Then: a
 * database file of garbage, a truncated real one, and a deleted one are each detected at start
 * and rebuilt, with a message saying so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sized } from '../../test/support/size';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateChannel } from '../../bench/generate';
import { Rng } from '../../test/fuzz/mutate';
import { folderChanger } from '../../test/support/folder-changer';
import { childBundle } from '../../test/support/child-bundle';

const REPO = path.resolve(__dirname, '../..');
/** test/support/index-worker.ts bundled (child-bundle.ts), made in beforeAll. */
let worker = '';

let tmp: string;
let channel: string;
const NOW = Date.now() + 60_000;
const live = new Set<ChildProcess>();

beforeAll(async () => {
  worker = await childBundle('test/support/index-worker.ts');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-crash-'));
  const g = generateChannel(300, path.join(tmp, 'gen'));
  channel = path.join(tmp, 'channel');
  fs.cpSync(g.root, channel, { recursive: true });
  fs.rmSync(path.join(tmp, 'gen'), { recursive: true, force: true });
});

afterEach(() => {
  for (const p of live) if (p.exitCode === null && p.signalCode === null && p.pid) process.kill(p.pid, 'SIGKILL');
  live.clear();
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }), 120_000); // many copies of the channel: longer than the 10 s default under load

interface Worker {
  readonly proc: ChildProcess;
  readonly lines: string[];
  /** Resolves when the worker printed `line` (or a line starting with it). */
  saw(line: string): Promise<void>;
  readonly exited: Promise<number | null>;
}

function startWorker(root: string, db: string, once: boolean): Worker {
  const proc = spawn(process.execPath, [worker, '--root', root, '--db', db, '--now', String(NOW), ...(once ? ['--once'] : [])], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(proc);
  const lines: string[] = [];
  const waiters: { line: string; resolve: () => void }[] = [];
  let buf = '';
  proc.stdout?.setEncoding('utf8');
  proc.stdout?.on('data', (chunk: string) => {
    buf += chunk;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(line);
      for (const w of waiters.splice(0)) {
        if (line.startsWith(w.line)) w.resolve();
        else waiters.push(w);
      }
    }
  });
  let stderr = '';
  proc.stderr?.setEncoding('utf8');
  proc.stderr?.on('data', (c: string) => (stderr += c));
  const exited = new Promise<number | null>((resolve) =>
    proc.on('exit', (code) => {
      live.delete(proc);
      if (code !== 0 && code !== null) lines.push(`EXIT ${code}: ${stderr.slice(-2000)}`);
      resolve(code);
    }),
  );
  return {
    proc,
    lines,
    exited,
    saw: (line) =>
      lines.some((l) => l.startsWith(line))
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            waiters.push({ line, resolve });
            void exited.then(() => (lines.some((l) => l.startsWith(line)) ? resolve() : reject(new Error(`worker exited before "${line}": ${lines.join(' | ')}`))));
          }),
  };
}

async function kill(w: Worker): Promise<void> {
  if (w.proc.exitCode === null && w.proc.signalCode === null && w.proc.pid) process.kill(w.proc.pid, 'SIGKILL');
  await w.exited;
}

/** Runs the worker once to completion; returns its lines. */
async function indexOnce(root: string, db: string): Promise<string[]> {
  const w = startWorker(root, db, true);
  const code = await w.exited;
  expect(code, w.lines.join('\n')).toBe(0);
  expect(w.lines).toContain('DONE');
  return w.lines;
}

/** What the board shows, from a database file. */
function board(file: string) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return {
      cards: db.prepare('SELECT order_id, state, lane, holder, card FROM cards ORDER BY order_id').all(),
      problems: db.prepare('SELECT path, problem, detail, line, order_id FROM problems ORDER BY path, problem, line, detail').all(),
      ledger: db.prepare('SELECT path, entries, intact, broken_at FROM ledger_files ORDER BY path').all(),
      cardAgents: db.prepare('SELECT agent, lane, sort_ms, order_id FROM card_agents ORDER BY agent, lane, sort_ms, order_id').all(),
    };
  } finally {
    db.close();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Kills, half during a first index, half during incremental updates (20 under CLAIMBOARD_TEST_FULL=1). */
const KILLS = sized(8, 20);

describe('the index survives SIGKILL at any point', () => {
  it(`${KILLS} kills during cold, warm and incremental indexing; the board then equals a clean rebuild`, async () => {
    const root = path.join(tmp, 'kill-channel');
    fs.cpSync(channel, root, { recursive: true });
    const dbFile = path.join(tmp, 'kill', 'index.sqlite');
    const rng = new Rng(6_2026);
    const change = folderChanger(root, rng);
    let changes = 0;
    const writer = setInterval(() => {
      change();
      changes++;
    }, 10);
    const outcomes: string[] = [];
    let readyMs = 300;
    try {
      for (let cycle = 0; cycle < KILLS; cycle++) {
        // A kill just after START can come before the first start created the file (a loaded
        // machine): the next start then builds it, saying so, as the first did.
        const existed = fs.existsSync(dbFile);
        const w = startWorker(root, dbFile, false);
        await w.saw('START');
        const t0 = Date.now();
        if (cycle % 2 === 0) {
          // During the first index (cold on the first cycle, then a restart on a half-written database).
          const ready = w.saw('READY').then(() => 'ready' as const);
          const raced = await Promise.race([ready, sleep(rng.next() * readyMs).then(() => 'timer' as const)]);
          if (raced === 'ready') readyMs = Math.max(50, Date.now() - t0);
          outcomes.push(raced === 'ready' ? 'after ready' : 'while indexing');
        } else {
          // During incremental updates: the folder keeps changing under a ready index.
          await w.saw('READY');
          readyMs = Math.max(50, Date.now() - t0);
          await sleep(50 + rng.next() * 400);
          outcomes.push('incremental');
        }
        await kill(w);
        // A kill never corrupts the database: only a start that found no file builds it (and says
        // so, unless the kill came before it looked).
        const said = w.lines.filter((l) => l.startsWith('EXIT') || l.startsWith('REBUILD'));
        const built = [expect.stringMatching(/^REBUILD index .* not found; building it from the folder$/)];
        expect(said, `cycle ${cycle}: ${said.join(' / ')}`).toEqual(existed || said.length === 0 ? [] : built);
      }
    } finally {
      clearInterval(writer);
    }
    // The final folder: the crashed database restarted once more, against a fresh one.
    await indexOnce(root, dbFile);
    const fresh = path.join(tmp, 'fresh', 'index.sqlite');
    await indexOnce(root, fresh);
    const got = board(dbFile);
    const want = board(fresh);
    const count = (k: string) => outcomes.filter((o) => o === k).length;
    console.log(
      `crash: ${KILLS} kills (${count('while indexing')} while indexing, ${count('after ready')} just after the first index, ${count('incremental')} during incremental updates), ` +
        `${changes} folder changes, board identical to a clean rebuild: ${want.cards.length} cards, ${want.problems.length} problems`,
    );
    expect(got.cards.length).toBeGreaterThan(250);
    expect(got).toEqual(want);
    expect(outcomes.filter((o) => o === 'incremental')).toHaveLength(KILLS / 2);
    expect(outcomes.some((o) => o === 'while indexing')).toBe(true);
  });
});

describe('an unusable database is detected at start and rebuilt, saying so', () => {
  const clean = () => {
    const file = path.join(tmp, `clean-${Math.random().toString(36).slice(2)}`, 'index.sqlite');
    return file;
  };
  let reference: ReturnType<typeof board>;
  beforeAll(async () => {
    const file = clean();
    await indexOnce(channel, file);
    reference = board(file);
  });

  it('a file of garbage', async () => {
    const file = clean();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, Buffer.alloc(64 * 1024, 'not a database, not at all. '));
    const lines = await indexOnce(channel, file);
    expect(lines.filter((l) => l.startsWith('REBUILD'))).toEqual([expect.stringMatching(/unreadable.*moved to .*corrupt.*rebuilding from the folder/)]);
    expect(board(file)).toEqual(reference);
    expect(fs.readdirSync(path.dirname(file)).some((f) => f.startsWith('index.sqlite.corrupt-'))).toBe(true);
  });

  it('a real database cut short', async () => {
    const file = clean();
    await indexOnce(channel, file);
    const size = fs.statSync(file).size;
    expect(size).toBeGreaterThan(64 * 1024);
    fs.truncateSync(file, Math.floor(size / 2));
    const lines = await indexOnce(channel, file);
    expect(lines.filter((l) => l.startsWith('REBUILD'))).toEqual([expect.stringMatching(/unreadable.*rebuilding from the folder/)]);
    expect(board(file)).toEqual(reference);
  });

  it('a database deleted (its write-ahead log left behind)', async () => {
    const file = clean();
    // A database killed mid-write leaves index.sqlite-wal and -shm beside it; then it is deleted.
    const w = startWorker(channel, file, false);
    await w.saw('READY');
    await kill(w);
    expect(fs.existsSync(`${file}-wal`)).toBe(true);
    fs.rmSync(file);
    const lines = await indexOnce(channel, file);
    expect(lines.filter((l) => l.startsWith('REBUILD'))).toEqual([expect.stringMatching(/not found.*building it from the folder/)]);
    expect(board(file)).toEqual(reference);
  });
});
