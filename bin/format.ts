/** How `claimboard state` prints a derived channel. */
import type { ChannelState } from '../lib/ledger/channel';
import { LANES, type Card } from '../lib/ledger/derive';

/** The `--json` object: `{orders: [Card...], problems: [Problem...], ledger: {file: {entries, intact, broken_at?}}}`. */
export function stateJson(state: ChannelState) {
  return {
    orders: state.orders,
    problems: state.problems.map(({ path, problem, detail, line }) => ({ path, problem, detail, ...(line !== undefined ? { line } : {}) })),
    ledger: Object.fromEntries(
      Object.entries(state.ledger).map(([file, r]) => [
        file,
        { entries: r.entries, intact: r.intact, ...(r.broken_at !== undefined ? { broken_at: r.broken_at } : {}) },
      ]),
    ),
  };
}

const LANE_TITLES: Record<Card['lane'], string> = {
  attention: 'NEEDS ATTENTION',
  stale: 'STALE',
  running: 'RUNNING',
  review: 'REVIEW',
  queue: 'QUEUE',
  done: 'DONE',
};

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s}s`;
  if (s < 5400) return `${Math.round(s / 60)}m`;
  return `${(s / 3600).toFixed(1)}h`;
}

/** A readable table: one block per lane (attention and stale first), then problems and ledger files. */
export function stateTable(state: ChannelState, nowMs: number): string {
  const out: string[] = [];
  for (const lane of LANES) {
    const cards = state.orders.filter((c) => c.lane === lane);
    out.push(`${LANE_TITLES[lane]} (${cards.length})`);
    if (cards.length === 0) {
      out.push('  -');
      continue;
    }
    const w = Math.min(40, Math.max(8, ...cards.map((c) => c.order_id.length)));
    for (const c of cards) {
      const why: string[] = [];
      if (c.reason) why.push(c.reason);
      if (c.since_ms !== undefined) why.push(`stale for ${ago(nowMs - c.since_ms)}`);
      if (c.flags.length) why.push(`flags: ${c.flags.join(', ')}`);
      out.push(
        `  ${c.order_id.padEnd(w)}  ${c.state.padEnd(17)}  ${(c.holder ?? '-').padEnd(12)}  ${why.join('; ')}`.trimEnd(),
      );
      // Each attention flag's reason in words, and where ferry reads the order otherwise.
      for (const a of c.alerts ?? []) out.push(`      ${a.flag}: ${a.text}`);
      if (c.ferry_note) out.push(`      ${c.ferry_note}`);
    }
  }
  out.push(`PROBLEMS (${state.problems.length})`);
  for (const p of state.problems) out.push(`  ${p.path}${p.line ? `:${p.line}` : ''}  ${p.problem}  ${p.detail}`);
  const ledgers = Object.entries(state.ledger);
  if (ledgers.length) {
    out.push('LEDGER FILES');
    for (const [f, r] of ledgers) out.push(`  ${f}  ${r.entries} entries  ${r.intact ? 'intact' : `broken at line ${r.broken_at}`}`);
  }
  return out.join('\n') + '\n';
}

/** One channel of several that `claimboard state` prints: its name, its folder, its derivation. */
export interface NamedState {
  readonly name: string;
  readonly root: string;
  readonly state: ChannelState;
}

/**
 * The `--json` object of several channels: `{channels: [{name, root}], orders: [Card & {channel}],
 * problems: [Problem & {channel}], ledger: {channel: {file: ...}}}`, the channels in the order
 * given; `channel` last in each row, as the hub's `/api/board` answers carry it.
 */
export function hubStateJson(states: readonly NamedState[]) {
  const each = states.map((s) => ({ name: s.name, json: stateJson(s.state) }));
  return {
    channels: states.map(({ name, root }) => ({ name, root })),
    orders: each.flatMap((e) => e.json.orders.map((o) => ({ ...o, channel: e.name }))),
    problems: each.flatMap((e) => e.json.problems.map((p) => ({ ...p, channel: e.name }))),
    ledger: Object.fromEntries(each.map((e) => [e.name, e.json.ledger])),
  };
}

/** Several channels as readable tables: one block per channel, headed `CHANNEL <name>  <folder>`, blocks apart by an empty line. */
export function hubStateTable(states: readonly NamedState[], nowMs: number): string {
  return states.map((s) => `CHANNEL ${s.name}  ${s.root}\n${stateTable(s.state, nowMs)}`).join('\n');
}
