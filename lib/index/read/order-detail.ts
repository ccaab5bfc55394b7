import 'server-only';
/**
 * An order's page (GET /api/orders/:id) beyond its card: the order folder read fresh from disk
 * (order-pass.ts, the same reading the indexer does), its timeline and files, with the
 * signature checks the index remembers so unchanged files cost no cryptography. What it is
 * computed from is read from the index by queries.ts (OrderInputs, one snapshot); this module
 * reads the folder and nothing of the database.
 */
import type { Card } from '../../ledger/derive';
import type { FileOutcome } from '../../ledger/channel';
import type { Roster } from '../../ledger/verify';
import { orderTimeline } from '../../ledger/timeline';
import type { OrderFile, OrderResponse, RunSeen } from '../types';
import { passOrder } from '../writer/order-pass';
import { arrivalsFor, type ClockStep } from '../../ledger/clock-steps';
import { serverVerify } from '../disk/verifier';

/** A run as the index stores it (with the writer's clock offset, not shown). */
export type RunRow = RunSeen & { readonly writer_offset_ms: number | null };

/** Everything the index holds that an order's answer is computed from (besides the folder on disk). */
export interface OrderInputs {
  /** indexVersion when these were read (at most as new as what they show). */
  readonly at: string;
  readonly cardText: string;
  /** Whether the card is still marked unverified (cold-pass.ts). */
  readonly unverified: boolean;
  readonly orderDir: string;
  readonly files: readonly { path: string; stat: string; arrival_ms: number; sig_key: string | null; sig_ok: number | null }[];
  readonly runs: readonly RunRow[];
  readonly dependents: readonly { order_id: string; state: Card['state'] }[];
  readonly roster: { readonly version: string; readonly roster: Roster };
  readonly channel: string;
  readonly staleAfterMs: number;
  /** The wall clock's steps the indexer saw (steady-clock.ts): arrivals read from disk are put where the index put them. */
  readonly clockSteps: readonly ClockStep[];
}

/**
 * The answer without its clock fields (`now_ms`, `stale_after_ms`, which come last): the card
 * from the index; the timeline and files read fresh from the order's folder (signatures checked
 * against the outcomes the index remembers, so no cryptography for unchanged files). Nothing
 * here depends on the clock: the derivation's own card is replaced by the index's.
 */
export function orderBody(i: OrderInputs, nowMs: number): Omit<OrderResponse, 'now_ms' | 'stale_after_ms'> {
  const stored = JSON.parse(i.cardText) as Card;
  const card: Card = i.unverified ? { ...stored, unverified: true } : stored;
  const remembered = new Map<string, { stat: string; key: string; ok: boolean }>();
  for (const r of i.files) if (r.sig_key !== null) remembered.set(r.path, { stat: r.stat, key: r.sig_key, ok: r.sig_ok === 1 });
  const known = new Map(i.files.map((r) => [r.path, r]));
  const arrival = arrivalsFor(i.clockSteps, (rel) => known.get(rel));
  const pass = passOrder(i.orderDir, {
    ...(arrival ? { arrival } : {}),
    root: i.channel,
    roster: i.roster.roster,
    derive: { nowMs, staleAfterMs: i.staleAfterMs, retired: new Set(), lastArrivalByAgent: new Map() },
    verify: serverVerify,
    remembered,
  });
  const v = pass.view;
  const o = v?.folder.order.record;
  const files: OrderFile[] = (v?.files ?? [])
    .filter((f): f is Extract<FileOutcome, { status: 'record' | 'problem' }> => f.status === 'record' || f.status === 'problem')
    .map((f): OrderFile =>
      f.status === 'record'
        ? { path: f.path, arrival_ms: f.arrivalMs, status: 'record', kind: f.record.kind }
        : { path: f.path, arrival_ms: f.arrivalMs, status: 'problem', kind: f.kind, problem: f.problem, detail: f.detail },
    );
  return {
    card,
    order: {
      id: card.order_id,
      project_id: card.project_id,
      issued_by: card.issued_by,
      assigned_to: card.assigned_to,
      created_at: card.created_at,
      requires_review: card.requires_review,
      requires_approval: o?.requires_approval ?? false,
      depends_on: card.depends_on,
      result_contract: o?.result_contract ? { required: [...o.result_contract.required] } : null,
      supersedes: o?.supersedes ?? null,
      payload: o?.payload ?? null,
      payload_digest: o?.payload_digest ?? '',
    },
    timeline: v ? orderTimeline({ ...v, card }) : [],
    runs: i.runs.map((r): RunSeen => ({ agent: r.agent, run: r.run, pid: r.pid, first_arrival_ms: r.first_arrival_ms, last_arrival_ms: r.last_arrival_ms, last_writer_at: r.last_writer_at, beats: r.beats })),
    files,
    dependents: i.dependents,
  };
}
