/**
 * An order's story as a team lead reads it: every valid record of its
 * folder as one event, with its writer, the writer's clock and the local arrival side by side.
 * Ordered by local arrival (this machine's clock), never by writer clocks.
 */
import type { OrderView } from './channel';
import { canonicalName } from './names';
import { decisionTarget, parseDecisionTarget, targetList } from './targets';

/** One event of an order's story (GET /api/orders/:id `timeline`, re-exported by lib/api/types.ts), oldest arrival first. */
export interface TimelineEvent {
  readonly kind:
    | 'order'
    | 'claim'
    | 'heartbeat'
    | 'result'
    | 'review'
    | 'recommendation'
    | 'release'
    | 'giveup'
    | 'reopen'
    | 'ack'
    | 'interrupt'
    | 'interrupt_ack'
    | 'supersede'
    | 'retirement';
  /** Who wrote it (canonical). */
  readonly writer: string;
  /** The writer's own timestamp (RFC 3339 text as written). */
  readonly writer_time: string;
  /** When the file (its current content) arrived here, ms local. */
  readonly arrival_ms: number;
  /** One plain sentence, e.g. "ops released fang's claim: requeued: stale". */
  readonly summary: string;
  /** Channel-relative path of the file. */
  readonly path: string;
  /** Extra facts for this kind (run, pid, revision, target, reason, accepted...). */
  readonly detail: Readonly<Record<string, string | number | boolean | null>>;
}

/** The events of one order's folder, oldest arrival first (ties by path). */
export function orderTimeline(view: OrderView): TimelineEvent[] {
  const f = view.folder;
  const ev: TimelineEvent[] = [];
  const o = f.order;
  ev.push({
    kind: 'order',
    writer: o.record.signed_by ? canonicalName(o.record.signed_by) : o.record.issued_by,
    writer_time: o.record.created_at.text,
    arrival_ms: o.arrivalMs,
    summary: `${o.record.issued_by} issued ${o.record.id}${o.record.assigned_to ? ` to ${o.record.assigned_to}` : ''}${o.record.depends_on.length ? `, after ${o.record.depends_on.join(', ')}` : ''}${o.record.supersedes ? `, to do ${o.record.supersedes}'s work` : ''}`,
    path: o.path,
    detail: { project: o.record.project_id, requires_review: o.record.requires_review, ...(o.record.supersedes ? { supersedes: o.record.supersedes } : {}) },
  });
  for (const c of f.claims) {
    ev.push({ kind: 'claim', writer: c.record.agent, writer_time: c.record.claimed_at.text, arrival_ms: c.arrivalMs, summary: `${c.record.agent} claimed it`, path: c.path, detail: {} });
  }
  for (const h of f.heartbeats) {
    ev.push({
      kind: 'heartbeat',
      writer: h.record.agent,
      writer_time: h.record.at.text,
      arrival_ms: h.arrivalMs,
      summary: `${h.record.agent}'s latest heartbeat (run ${h.record.run.slice(0, 12)}, pid ${h.record.pid})`,
      path: h.path,
      detail: { run: h.record.run, pid: h.record.pid },
    });
  }
  for (const r of f.results) {
    ev.push({
      kind: 'result',
      writer: r.record.agent,
      writer_time: r.record.submitted_at.text,
      arrival_ms: r.arrivalMs,
      summary: `${r.record.agent} delivered revision ${r.record.revision}`,
      path: r.path,
      detail: { revision: r.record.revision },
    });
  }
  for (const r of f.reviews) {
    ev.push({
      kind: 'review',
      writer: r.record.reviewer,
      writer_time: r.record.reviewed_at.text,
      arrival_ms: r.arrivalMs,
      summary: `${r.record.reviewer} ${r.record.accepted ? 'accepted' : 'sent back'} revision ${r.record.revision}${r.record.notes ? `: ${r.record.notes}` : ''}`,
      path: r.path,
      detail: { revision: r.record.revision, accepted: r.record.accepted },
    });
  }
  for (const r of view.recommendations) {
    ev.push({
      kind: 'recommendation',
      writer: r.record.reviewer,
      writer_time: r.record.recommended_at.text,
      arrival_ms: r.arrivalMs,
      summary: `${r.record.reviewer} recommends ${r.record.accept ? 'accepting' : 'sending back'} revision ${r.record.revision}: ${r.record.reasoning}`,
      path: r.path,
      detail: { revision: r.record.revision, accept: r.record.accept },
    });
  }
  for (const r of f.releases) {
    const self = r.record.releaser === r.record.released;
    ev.push({
      kind: 'release',
      writer: r.record.releaser,
      writer_time: r.record.at.text,
      arrival_ms: r.arrivalMs,
      summary: self ? `${r.record.releaser} released its own claim: ${r.record.reason}` : `${r.record.releaser} released ${r.record.released}'s claim: ${r.record.reason}`,
      path: r.path,
      detail: { released: r.record.released, reason: r.record.reason },
    });
  }
  for (const g of f.giveups) {
    ev.push({
      kind: 'giveup',
      writer: g.record.agent,
      writer_time: g.record.at.text,
      arrival_ms: g.arrivalMs,
      summary: `${g.record.agent} gave up after ${g.record.attempts} attempt${g.record.attempts === 1 ? '' : 's'}: ${g.record.reason}`,
      path: g.path,
      detail: { reason: g.record.reason, attempts: g.record.attempts, run: g.record.run, target: decisionTarget({ kind: 'giveup', digest: g.record.file_digest }) },
    });
  }
  for (const r of f.reopens) {
    ev.push({
      kind: 'reopen',
      writer: r.record.operator,
      writer_time: r.record.at.text,
      arrival_ms: r.arrivalMs,
      summary: `${r.record.operator} reopened ${describeTarget(r.record.target)}: ${r.record.reason}`,
      path: r.path,
      detail: { target: r.record.target, reason: r.record.reason },
    });
  }
  for (const a of f.acks) {
    ev.push({
      kind: 'ack',
      writer: a.record.operator,
      writer_time: a.record.at.text,
      arrival_ms: a.arrivalMs,
      summary: `${a.record.operator} acknowledged ${describeTarget(a.record.target)}${a.record.note ? `: ${a.record.note}` : ''}`,
      path: a.path,
      detail: { target: a.record.target, note: a.record.note },
    });
  }
  for (const i of view.interrupts) {
    ev.push({
      kind: 'interrupt',
      writer: i.record.issued_by,
      writer_time: i.record.created_at.text,
      arrival_ms: i.arrivalMs,
      summary: `${i.record.issued_by} asked to ${i.record.action}${i.record.note ? `: ${i.record.note}` : ''}`,
      path: i.path,
      detail: { action: i.record.action, note: i.record.note },
    });
  }
  for (const a of f.interruptAcks) {
    // Matched to the interrupt by its issuer (one interrupt file per issuer, interrupt.<issuer>.json).
    const it = view.interrupts.find((i) => i.record.issued_by === a.record.issued_by)?.record;
    ev.push({
      kind: 'interrupt_ack',
      writer: a.record.agent,
      writer_time: a.record.acknowledged_at.text,
      arrival_ms: a.arrivalMs,
      summary: `${a.record.agent} acknowledged ${a.record.issued_by}'s ${it ? it.action : 'interrupt'}${it?.note ? ` (“${it.note}”)` : ''} when its run started`,
      path: a.path,
      detail: { issued_by: a.record.issued_by },
    });
  }
  for (const s of f.supersedes) {
    ev.push({
      kind: 'supersede',
      writer: s.record.operator,
      writer_time: s.record.at.text,
      arrival_ms: s.arrivalMs,
      summary: `${s.record.operator} superseded it by ${s.record.by}${s.record.reason ? `: ${s.record.reason}` : ''}`,
      path: s.path,
      detail: { by: s.record.by, reason: s.record.reason },
    });
  }
  ev.sort((a, b) => a.arrival_ms - b.arrival_ms || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return ev;
}

/** A decision target in words. */
export function describeTarget(target: string): string {
  // An ack or a reopen may name several targets (lib/ledger/targets.ts): each in words.
  const all = targetList(target).split(' ');
  if (all.length > 1) return all.map(describeTarget).join(' and ');
  const t = parseDecisionTarget(all[0] ?? '');
  if (!t) return target;
  switch (t.kind) {
    case 'late': {
      const reading = t.holder === null ? 'order open' : t.twice ? `beside ${t.holder}'s own` : `held by ${t.holder}`;
      return `the late ${t.agents.length > 1 ? 'results' : 'result'} by ${t.agents.join(', ')} at revision ${t.revision} (${reading})`;
    }
    case 'result':
      return `the result at revision ${t.revision}`;
    case 'review':
      return `the accepting review of revision ${t.revision}`;
    case 'giveup':
      return `the give-up ${t.digest.slice(0, 12)}…`;
  }
}
