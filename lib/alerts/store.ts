import 'server-only';
/**
 * The alerts' tables in the index (migration 7, lib/index/migrations/07-alerts.ts), written by
 * the serve process only (the one writer): the sent set (`alerts_sent`), the deliveries owed and made
 * (`alert_outbox`), each target's last success and error (`alert_state`), and the
 * configuration the web server shows (`meta` key `alerts`). Times: this machine's clock, ms.
 */
import type { DB } from '../index/db';
import { deleteMeta, writeMeta, type StoredAlertConfig } from '../index/store/meta';
import type { Decision, OpenRow } from './decide';
import type { AlertEvent } from './items';


/** Finished deliveries kept for GET /api/alerts's history (the newest). */
const KEEP_DONE = 1000;
/** Resolved rows of the sent set kept (the newest). */
const KEEP_RESOLVED = 10_000;

/** The rows of the sent set not resolved. */
export function openRows(db: DB): OpenRow[] {
  return db.prepare('SELECT key, grp, event AS kind, order_id, path, reason, first_seen_ms, sent_ms, gone_ms FROM alerts_sent WHERE resolved_ms IS NULL').all() as OpenRow[];
}

/** One message for one target, ready to deliver. */
export interface OutboxEntry {
  readonly target: string;
  readonly event: AlertEvent;
  readonly grp: string;
  readonly payload: string;
}

/** Stores a decision and the messages it makes, in one transaction (so the sent set and the outbox agree). */
export function storeDecision(db: DB, d: Decision, messages: readonly OutboxEntry[], nowMs: number): void {
  db.transaction(() => {
    const put = db.prepare(
      'INSERT OR REPLACE INTO alerts_sent (key, grp, event, order_id, path, reason, first_seen_ms, sent_ms, gone_ms, resolved_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)',
    );
    for (const r of d.put) put.run(r.key, r.grp, r.kind, r.order_id, r.path, r.reason, r.first_seen_ms, r.sent_ms, r.gone_ms);
    const del = db.prepare('DELETE FROM alerts_sent WHERE key = ?');
    for (const k of d.drop) del.run(k);
    const close = db.prepare('UPDATE alerts_sent SET resolved_ms = ? WHERE key = ?');
    for (const g of d.resolve) for (const r of g.rows) close.run(nowMs, r.key);
    const add = db.prepare("INSERT INTO alert_outbox (target, event, grp, payload, created_ms, status, attempts, next_ms) VALUES (?, ?, ?, ?, ?, 'pending', 0, ?)");
    for (const m of messages) add.run(m.target, m.event, m.grp, m.payload, nowMs, nowMs);
  })();
}

/**
 * Records the configuration at start: the meta row the web server reads, a state row per
 * target; deliveries still owed to a target no longer configured are marked failed.
 */
export function storeConfig(db: DB, cfg: StoredAlertConfig, nowMs: number): void {
  db.transaction(() => {
    writeMeta(db, 'alerts', cfg);
    const up = db.prepare('INSERT INTO alert_state (target, kind, label) VALUES (?, ?, ?) ON CONFLICT (target) DO UPDATE SET kind = excluded.kind, label = excluded.label');
    for (const t of cfg.targets) up.run(t.id, t.kind, t.label);
    const ids = new Set(cfg.targets.map((t) => t.id));
    const orphan = (db.prepare("SELECT DISTINCT target FROM alert_outbox WHERE status = 'pending'").all() as { target: string }[]).filter((r) => !ids.has(r.target));
    const fail = db.prepare("UPDATE alert_outbox SET status = 'failed', done_ms = ?, last_error = 'target no longer configured' WHERE target = ? AND status = 'pending'");
    for (const r of orphan) fail.run(nowMs, r.target);
  })();
}

const ALERT_TABLES = {
  alerts_sent: 'key, grp, event, order_id, path, reason, first_seen_ms, sent_ms, gone_ms, resolved_ms',
  alert_outbox: 'id, target, event, grp, payload, created_ms, status, attempts, next_ms, done_ms, last_error',
  alert_state: 'target, kind, label, last_success_ms, last_error, last_error_ms, sent, failed',
} as const;

/**
 * Copies the alerts' tables from `from` into `to`, whose own rows of them are dropped first, in
 * one transaction on `to`: the sent set, every delivery (owed ones keep their ids, so an attempt
 * under way records its outcome on the copy) and each target's state. For an index rebuilt
 * while serving (the database deleted or replaced), while the old connection is still open.
 * Returns how many open rows and owed deliveries were copied.
 */
export function copyAlertTables(from: DB, to: DB): { open: number; owed: number } {
  const read = Object.fromEntries(Object.entries(ALERT_TABLES).map(([t, cols]) => [t, from.prepare(`SELECT ${cols} FROM ${t}`).raw().all() as unknown[][]]));
  to.transaction(() => {
    for (const [t, cols] of Object.entries(ALERT_TABLES)) {
      to.prepare(`DELETE FROM ${t}`).run();
      const put = to.prepare(`INSERT INTO ${t} (${cols}) VALUES (${cols.split(',').map(() => '?').join(', ')})`);
      for (const row of read[t] ?? []) put.run(...row);
    }
  })();
  const open = (from.prepare('SELECT COUNT(*) AS n FROM alerts_sent WHERE resolved_ms IS NULL').get() as { n: number }).n;
  const owed = (from.prepare("SELECT COUNT(*) AS n FROM alert_outbox WHERE status = 'pending'").get() as { n: number }).n;
  return { open, owed };
}

/** Forgets the configuration (serve started without alerts: the page header shows none). */
export function clearConfig(db: DB): void {
  deleteMeta(db, 'alerts');
}

/** A delivery owed. */
export interface PendingDelivery {
  readonly id: number;
  readonly payload: string;
  readonly attempts: number;
  /** Not before (ms). */
  readonly next_ms: number;
}

/** The oldest delivery `target` still owes (deliveries to one target go in order), or null. */
export function nextPending(db: DB, target: string): PendingDelivery | null {
  return (
    (db.prepare("SELECT id, payload, attempts, COALESCE(next_ms, 0) AS next_ms FROM alert_outbox WHERE target = ? AND status = 'pending' ORDER BY id LIMIT 1").get(target) as
      | PendingDelivery
      | undefined) ?? null
  );
}

/** A delivery made. */
export function recordSuccess(db: DB, id: number, target: string, nowMs: number): void {
  db.transaction(() => {
    db.prepare("UPDATE alert_outbox SET status = 'sent', attempts = attempts + 1, done_ms = ? WHERE id = ?").run(nowMs, id);
    db.prepare('UPDATE alert_state SET last_success_ms = ?, sent = sent + 1 WHERE target = ?').run(nowMs, target);
  })();
}

/** An attempt failed: retried at `retryAtMs`, or given up (null). */
export function recordFailure(db: DB, id: number, target: string, nowMs: number, error: string, retryAtMs: number | null): void {
  db.transaction(() => {
    if (retryAtMs === null) {
      db.prepare("UPDATE alert_outbox SET status = 'failed', attempts = attempts + 1, done_ms = ?, last_error = ? WHERE id = ?").run(nowMs, error, id);
      db.prepare('UPDATE alert_state SET last_error = ?, last_error_ms = ?, failed = failed + 1 WHERE target = ?').run(error, nowMs, target);
    } else {
      db.prepare('UPDATE alert_outbox SET attempts = attempts + 1, next_ms = ?, last_error = ? WHERE id = ?').run(retryAtMs, error, id);
      db.prepare('UPDATE alert_state SET last_error = ?, last_error_ms = ? WHERE target = ?').run(error, nowMs, target);
    }
  })();
}

/** Drops old history: finished deliveries beyond the newest KEEP_DONE, resolved rows beyond KEEP_RESOLVED. */
export function prune(db: DB): void {
  db.prepare(
    `DELETE FROM alert_outbox WHERE status <> 'pending' AND id < (SELECT MIN(id) FROM (SELECT id FROM alert_outbox WHERE status <> 'pending' ORDER BY id DESC LIMIT ${KEEP_DONE}))`,
  ).run();
  db.prepare(
    `DELETE FROM alerts_sent WHERE resolved_ms IS NOT NULL AND resolved_ms < (SELECT MIN(resolved_ms) FROM (SELECT resolved_ms FROM alerts_sent WHERE resolved_ms IS NOT NULL ORDER BY resolved_ms DESC LIMIT ${KEEP_RESOLVED}))`,
  ).run();
}
