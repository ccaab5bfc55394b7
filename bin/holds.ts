/**
 * `claimboard holds <channel>`: the fleet history's rows, the ones GET /api/holds pages through
 * and /history draws, for a window, as JSON or CSV. The folder is indexed into memory as `serve`
 * indexes it (file ctimes are the arrivals), and the rows are read with the API's own query; with
 * `--db`, `serve`'s index is read instead, which also has the silences its indexer saw inside
 * holds while it ran (a folder holds only each run's latest heartbeat).
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { HoldRow } from '../lib/ledger/holds';
import type { HoldsResponse } from '../lib/index/types';
import { holdFiltersOf } from '../lib/api/holds-get';
import { MAX_HOLDS_LIMIT } from '../lib/index/read/holds-queries';
import { staleAfterMsFor } from './stale-after-for';

/** The CSV's columns, in order: one row per hold (docs: README, "The fleet history"). */
export const CSV_COLUMNS = [
  'order_id',
  'agent',
  'project_id',
  'run',
  'claimed_arrival',
  'claimed_at',
  'ended_arrival',
  'ended_at',
  'ending',
  'ended_by',
  'reason',
  'delivered',
  'silent_ms',
  'claimed_ms',
  'ended_ms',
] as const;

/** One CSV cell: quoted when it holds a comma, a quote or a line break (RFC 4180); a cell a spreadsheet would run as a formula gets a leading apostrophe. */
function cell(v: string | number | boolean | null): string {
  let s = v === null ? '' : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** An arrival as the CSV shows it: ISO 8601 in UTC, to the ms, this machine's clock (claimed_ms and ended_ms keep the exact number). */
const arrival = (ms: number | null) => (ms === null ? null : new Date(Math.trunc(ms)).toISOString());

/** The rows as CSV: a header line, then one line per hold, each line ended by CRLF. */
export function holdsCsv(rows: readonly HoldRow[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const h of rows) {
    const v: Record<(typeof CSV_COLUMNS)[number], string | number | boolean | null> = {
      order_id: h.order_id,
      agent: h.agent,
      project_id: h.project_id,
      run: h.run,
      claimed_arrival: arrival(h.claimed_ms),
      claimed_at: h.claimed_at,
      ended_arrival: arrival(h.ended_ms),
      ended_at: h.ended_at,
      ending: h.ending,
      ended_by: h.ended_by,
      reason: h.reason,
      delivered: h.delivered,
      silent_ms: Math.round(h.silent_ms),
      claimed_ms: h.claimed_ms,
      ended_ms: h.ended_ms,
    };
    lines.push(CSV_COLUMNS.map((c) => cell(v[c])).join(','));
  }
  return lines.map((l) => `${l}\r\n`).join('');
}

/** What `holds` asks for. */
export interface HoldsOptions {
  readonly from?: string;
  readonly to?: string;
  readonly range?: string;
  readonly q?: string;
  readonly agent?: string;
  readonly project?: string;
  /** This machine's clock for the window and for the silences of holds still held (default now). */
  readonly now?: number;
  /** stale_after, ms, for a folder indexed here (the index's own with --db). */
  readonly staleAfterMs: number;
  /** Read `serve`'s index at this file instead of indexing the folder. */
  readonly db?: string;
}

/** Every hold of the window the options select, page after page, and the window and clock they were read with. Throws InvalidArgumentError on a window or query that does not read. */
export async function holdsOfChannel(channel: string, o: HoldsOptions): Promise<Omit<HoldsResponse, 'next_cursor'>> {
  const p = new URLSearchParams();
  for (const k of ['from', 'to', 'range', 'q', 'agent', 'project'] as const) if (o[k] !== undefined) p.set(k, o[k]);
  const { openMemory, openReader } = await import('../lib/index/db');
  const { fitFilters, holdsPage } = await import('../lib/index/read/holds-queries');
  const { indexNowMs } = await import('../lib/index/steady-clock');
  const db = o.db ? openReader(o.db) : openMemory();
  try {
    if (!o.db) {
      const { Indexer } = await import('../lib/index/indexer');
      const ix = new Indexer({ root: channel, db, staleAfterMs: o.staleAfterMs, watch: false, log: () => {}, ...(o.now !== undefined ? { clock: () => o.now as number } : {}) });
      await ix.start();
      await ix.stop();
    }
    const now = o.now ?? indexNowMs(db);
    const f0 = holdFiltersOf(`?${p.toString()}`, now);
    if (!f0.ok) throw new InvalidArgumentError(f0.reason);
    const f = { ...f0, filters: f0.filters.fitted ? fitFilters(db, f0.filters, now) : f0.filters };
    const holds: HoldRow[] = [];
    let cursor: string | null = null;
    let page: HoldsResponse;
    do {
      page = holdsPage(db, f.filters, cursor, now, MAX_HOLDS_LIMIT);
      holds.push(...page.holds);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return { holds, from_ms: page.from_ms, to_ms: page.to_ms, range: page.range, fitted: page.fitted, now_ms: page.now_ms, stale_after_ms: page.stale_after_ms };
  } finally {
    db.close();
  }
}

/** Adds `claimboard holds`. `setCode` sets the exit code; `parseNow` and `parseSeconds` are the CLI's. */
export function addHoldsCommand(program: Command, setCode: (c: number) => void, parse: { now: (v: string) => number; seconds: (v: string) => number }): void {
  program
    .command('holds')
    .description('the fleet history: one row per hold (who held which order, from its claim to how it ended, by arrival here) in a window')
    .argument('<channel>', 'the channel root')
    .option('--range <1h|24h|7d|30d>', 'the window before --to or from --from (default 24h; with neither, the shortest that holds every hold of the last 30 days)')
    .option('--from <time>', 'the window from this instant: RFC 3339 or ms since the epoch, this machine\'s clock')
    .option('--to <time>', 'the window up to this instant (default now)')
    .option('--q <query>', "the board's query language: agent:, project:, holder:, lane:, state:, flag:, free words")
    .option('--agent <name>', 'only this agent\'s holds')
    .option('--project <id>', 'only this project\'s orders')
    .option('--csv', 'CSV with a header line instead of JSON')
    .option('--now <rfc3339>', "this machine's clock now (default: now)", parse.now)
    .option('--stale-after <seconds>', 'how long a claim may stay silent before it is stale (default 300)', parse.seconds)
    .option('--db <file>', "read this index of `claimboard serve` instead of indexing the folder (adds the silences serve saw inside holds)")
    .action(async (channel: string, opts: { range?: string; from?: string; to?: string; q?: string; agent?: string; project?: string; csv?: boolean; now?: number; staleAfter?: number; db?: string }) => {
      try {
        const r = await holdsOfChannel(channel, { ...opts, staleAfterMs: staleAfterMsFor(channel, opts.staleAfter) });
        process.stdout.write(opts.csv ? holdsCsv(r.holds) : `${JSON.stringify(r)}\n`);
      } catch (e) {
        if (e instanceof InvalidArgumentError) {
          process.stderr.write(`claimboard: ${e.message}\n`);
          setCode(2);
          return;
        }
        process.stderr.write(`claimboard: ${e instanceof Error ? e.message : String(e)}\n`);
        setCode(1);
      }
    });
}
