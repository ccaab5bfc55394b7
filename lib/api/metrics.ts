import 'server-only';
/**
 * GET /metrics in the Prometheus text format (docs/prometheus.md), through prom-client.
 *
 * Two kinds of figures, from two processes:
 * - the index's, read per scrape (lib/index/read/metrics-queries.ts) into a Registry made for that
 *   scrape alone (no global metric objects to register twice when Next reloads a module);
 * - this web process's own (`process_*`, `nodejs_*`: prom-client's default metrics), from one
 *   Registry per process kept on globalThis. The indexer is the separate `claimboard serve`
 *   process; what it records about itself is in the index (`claimboard_index_*`).
 *
 * Every age is this machine's clock (`nowMs`, ms) minus an instant measured on this machine (a
 * file's arrival here, or the indexer's clock); no timestamp is exposed, so no Prometheus rule
 * ever compares its clock with this machine's.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { ProblemCode } from '../ledger/channel';
import { LANES, type Lane, type OrderState } from '../ledger/derive';
import { ATTENTION_FLAGS } from '../ledger/card';
import type { DB } from '../index/db';
import { indexFigures, type IndexFigures } from '../index/read/metrics-queries';
import type { AlertsResponse } from '../index/types';
import { alertsStatus } from '../alerts/status';

/** What one scrape shows: the index's figures, and the alert targets' counts as serve's alert engine stored them. */
export interface MetricsFigures extends IndexFigures {
  /** Whether serve sends alerts, and per target its messages sent, given up on and owed. */
  readonly alerts: Pick<AlertsResponse, 'configured' | 'targets'>;
}

/** The figures of one scrape at `nowMs` (this machine's clock, on the index's timeline). */
export function metricsFigures(db: DB, nowMs: number): MetricsFigures {
  const alerts = alertsStatus(db, nowMs);
  return { ...indexFigures(db), alerts: { configured: alerts.configured, targets: alerts.targets } };
}

/** The content type of the answer (Prometheus text format 0.0.4). */
export const METRICS_CONTENT_TYPE = new Registry().contentType;

/** Every problem code (a Record so that a new code fails the type check until listed). */
const PROBLEM_CODES = Object.keys({
  symlink: 1,
  too_large: 1,
  sync_conflict: 1,
  invalid: 1,
  name_mismatch: 1,
  unsigned: 1,
  unknown_signer: 1,
  invalid_signature: 1,
  unauthorized_signer: 1,
  key_changed: 1,
  ledger_broken: 1,
} satisfies Record<ProblemCode, 1>) as ProblemCode[];

const PROCESS_REGISTRY = Symbol.for('claimboard.metrics.processRegistry');

/** This process's default metrics registry, made once per process (a reloaded module finds it on globalThis). */
function processRegistry(): Registry {
  const g = globalThis as { [PROCESS_REGISTRY]?: Registry };
  let r = g[PROCESS_REGISTRY];
  if (!r) {
    r = new Registry();
    collectDefaultMetrics({ register: r });
    g[PROCESS_REGISTRY] = r;
  }
  return r;
}

const seconds = (ms: number) => Math.max(0, ms) / 1000;

/** One channel's figures in a scrape: its name (the `channel` label of its series) and its figures, null when its index could not be opened. */
export interface ChannelFigures {
  readonly channel: string;
  readonly figures: MetricsFigures | null;
  /** "Now" on this channel's index's clock, ms. */
  readonly nowMs: number;
}

/**
 * The text of one scrape: each channel's figures, every index series labelled with its
 * `channel` (`claimboard_index_up` 0 for one whose index could not be opened: its other series
 * are absent), and this process's metrics (`process_*`, `nodejs_*`, unlabelled). `channels`
 * null: the channels served cannot be said (a serve of one channel whose index is not made yet):
 * `claimboard_index_up 0` alone, unlabelled.
 */
export async function metricsText(channels: readonly ChannelFigures[] | null): Promise<string> {
  const reg = new Registry();
  const made = new Map<string, Gauge<string> | Counter<string>>();
  const gauge: GaugeMaker = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => {
    const hit = made.get(name);
    if (hit) return hit as Gauge<L | 'channel'>;
    const g = new Gauge<L | 'channel'>({ name, help, labelNames: ['channel', ...labelNames], registers: [reg] });
    made.set(name, g);
    return g;
  };
  const counter: CounterMaker = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => {
    const hit = made.get(name);
    if (hit) return hit;
    const c = new Counter<L | 'channel'>({ name, help, labelNames: ['channel', ...labelNames], registers: [reg] });
    made.set(name, c);
    return c;
  };
  const UP_HELP = 'Whether the web process could open the index (1) or not (0); without it only the process metrics follow.';
  if (channels === null) new Gauge({ name: 'claimboard_index_up', help: UP_HELP, registers: [reg] }).set(0);
  else {
    for (const c of channels) {
      gauge('claimboard_index_up', UP_HELP).set({ channel: c.channel }, c.figures ? 1 : 0);
      if (c.figures) indexMetrics(c.channel, c.figures, c.nowMs, gauge, counter);
    }
  }
  return Registry.merge([reg, processRegistry()]).metrics();
}

/** A gauge of the scrape by name, made at its first use, labelled `channel` and `labelNames`. */
type GaugeMaker = <L extends string>(name: string, help: string, labelNames?: readonly L[]) => Gauge<L | 'channel'>;
/** A counter of the scrape by name, as GaugeMaker. */
type CounterMaker = <L extends string>(name: string, help: string, labelNames?: readonly L[]) => Counter<L | 'channel'>;

function indexMetrics(channel: string, f: MetricsFigures, nowMs: number, gauge: GaugeMaker, counter: CounterMaker): void {
  const one = { channel };
  gauge('claimboard_index_ready', 'Whether the indexer (the claimboard serve process) finished its first index of the folder (1) or is still reading it (0).').set(one, f.progress.phase === 'ready' ? 1 : 0);

  const lanes = gauge('claimboard_lane_orders', 'Orders in each board lane (what /api/board counts with no filter).', ['lane']);
  for (const lane of LANES) lanes.set({ channel, lane }, f.lanes.get(lane) ?? 0);
  const orders = gauge('claimboard_orders', 'Orders per board lane and derived state (only the pairs that occur).', ['lane', 'state']);
  for (const r of f.laneStates) orders.set({ channel, lane: r.lane satisfies Lane, state: r.state satisfies OrderState }, r.count);

  const flags = gauge('claimboard_attention_items', 'Orders in Needs attention carrying each attention flag (an order with two flags counts under both).', ['flag']);
  for (const flag of ATTENTION_FLAGS) flags.set({ channel, flag }, f.flags.get(flag) ?? 0);
  for (const [flag, n] of f.flags) if (!(ATTENTION_FLAGS as readonly string[]).includes(flag)) flags.set({ channel, flag }, n);

  gauge(
    'claimboard_oldest_stale_claim_age_seconds',
    "Seconds since the oldest stale claim became stale (its holder's heartbeat, or claim, last arrived stale_after before that), this machine's clock; 0 when no claim is stale.",
  ).set(one, f.oldestStaleSinceMs === null ? 0 : seconds(nowMs - f.oldestStaleSinceMs));
  gauge(
    'claimboard_oldest_attention_age_seconds',
    "Seconds since the indexer first stored the oldest order now in Needs attention in that lane, this machine's clock; 0 when the lane is empty.",
  ).set(one, f.oldestAttentionSinceMs === null ? 0 : seconds(nowMs - f.oldestAttentionSinceMs));

  const problems = gauge('claimboard_problems', 'Problem rows per problem code (files the index could not use, and why: docs/channel-format.md).', ['code']);
  for (const code of PROBLEM_CODES) problems.set({ channel, code }, f.problems.get(code) ?? 0);
  for (const [code, n] of f.problems) if (!(PROBLEM_CODES as readonly string[]).includes(code)) problems.set({ channel, code }, n);

  const agents = gauge(
    'claimboard_agent_last_arrival_age_seconds',
    "Seconds since a file written by the roster agent last arrived here (its arrival: the file's ctime on this machine), this machine's clock; agents none of whose files arrived are absent.",
    ['agent', 'retired'],
  );
  for (const a of f.agents) if (a.lastArrivalMs !== null) agents.set({ channel, agent: a.name, retired: String(a.retired) }, seconds(nowMs - a.lastArrivalMs));

  alertMetrics(channel, f.alerts, gauge, counter);

  const pass = f.pass;
  counter(
    'claimboard_signatures_verified_total',
    'Ed25519 signatures the indexer (the claimboard serve process) verified since it started, as it last recorded in the index (resets when it restarts; remembered checks are not verified again).',
  ).inc(one, pass?.verified_total ?? f.progress.files_verified);
  if (!pass) return; // an index written before the indexer recorded any pass
  gauge('claimboard_index_last_pass_age_seconds', "Seconds since the indexer last settled a pass (it settles one per change it reads and when a claim's stale time comes), this machine's clock.").set(one, seconds(nowMs - pass.last_pass_ms));
  counter('claimboard_index_passes_total', 'Passes the indexer settled since it started, the first index not counted (resets when it restarts).').inc(one, pass.passes_total);
  if (pass.lag) {
    gauge(
      'claimboard_index_lag_seconds',
      "Index lag of the indexer's last pass that stored a new or re-arrived file: the largest (when its card was stored - when the file arrived here), seconds, both this machine's clock. Absent before such a pass; the first index is not counted.",
    ).set(one, seconds(pass.lag.max_ms));
    gauge('claimboard_index_lag_measured_age_seconds', "Seconds since claimboard_index_lag_seconds was measured (when that pass stored its cards), this machine's clock.").set(one, seconds(nowMs - pass.lag.at_ms));
  }
}

/** The alert targets' counts as the serve process's alert engine of `channel` stored them (lib/alerts/store.ts). */
function alertMetrics(channel: string, a: MetricsFigures['alerts'], gauge: GaugeMaker, counter: CounterMaker): void {
  gauge('claimboard_alerts_configured', 'Whether claimboard serve sends alerts (--alert-webhook, --alert-command): 1, or 0.').set({ channel }, a.configured ? 1 : 0);
  const labelNames = ['target', 'kind', 'label'] as const;
  const sent = counter('claimboard_alerts_sent_total', 'Alert messages delivered to each target since the index was made (target: its id in GET /api/alerts; label: redacted).', labelNames);
  const failed = counter('claimboard_alerts_failed_total', 'Alert messages given up on for each target since the index was made (no more attempts).', labelNames);
  const pending = gauge('claimboard_alerts_pending', 'Alert messages each target is still owed (waiting, being tried, or waiting to retry).', labelNames);
  const failing = gauge('claimboard_alerts_failing', "Whether each target's last attempt failed after its last success (1), or not (0).", labelNames);
  for (const t of a.targets) {
    const labels = { channel, target: t.id, kind: t.kind, label: t.label };
    sent.inc(labels, t.sent);
    failed.inc(labels, t.failed);
    pending.set(labels, t.pending);
    failing.set(labels, t.failing ? 1 : 0);
  }
}
