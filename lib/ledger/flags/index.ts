/**
 * The rulebook: every attention flag, its rule and its words, in the order cards list them.
 * derive.ts runs the rules; the board, the order page, the alerts, the CLI and
 * docs/channel-format.md read the words from here.
 */
import { ATTENTION_FLAGS, type Alert, type AttentionFlag } from '../card';
import { badRecord } from './bad-record';
import { deadRunHeld } from './dead-run-held';
import { doubleRun } from './double-run';
import type { OrderFacts } from './facts';
import { gaveUp } from './gave-up';
import { interruptUnacknowledged } from './interrupt-unacknowledged';
import { lateResult } from './late-result';
import { missingDependency } from './missing-dependency';
import { noWorkerLeft } from './no-worker-left';
import { releasedAssignee } from './released-assignee';
import { retiredHolder } from './retired-holder';
import { reviewLoop } from './review-loop';
import type { FlagRule } from './rule';
import { stopNotHolding } from './stop-not-holding';
import { syncConflict } from './sync-conflict';
import { unknownAssignee } from './unknown-assignee';

export type { FlagRule, Finding } from './rule';

/** Each flag's rule and words. */
export const FLAGS: Readonly<Record<AttentionFlag, FlagRule>> = {
  gave_up: gaveUp,
  double_run: doubleRun,
  late_result: lateResult,
  retired_holder: retiredHolder,
  released_assignee: releasedAssignee,
  unknown_assignee: unknownAssignee,
  review_loop: reviewLoop,
  bad_record: badRecord,
  sync_conflict: syncConflict,
  missing_dependency: missingDependency,
  interrupt_unacknowledged: interruptUnacknowledged,
  stop_not_holding: stopNotHolding,
  no_worker_left: noWorkerLeft,
  dead_run_held: deadRunHeld,
};

/** The rules in the order cards list their flags. */
export const RULEBOOK: readonly FlagRule[] = ATTENTION_FLAGS.map((f) => FLAGS[f]);

export const byFlagOrder = (a: Alert, b: Alert) => ATTENTION_FLAGS.indexOf(a.flag) - ATTENTION_FLAGS.indexOf(b.flag);

/** Every rule over one order's facts: its alerts in flag order, and the notes the rules found. */
export function runRules(f: OrderFacts): { alerts: Alert[]; notes: string[] } {
  const alerts: Alert[] = [];
  const notes: string[] = [];
  for (const rule of RULEBOOK) {
    const found = rule.raise?.(f);
    if (found?.text !== undefined) alerts.push({ flag: rule.flag, text: found.text });
    notes.push(...(found?.notes ?? []));
    // A supersede moved the work to a new order: what ferry still does with this one is no longer a person's to fix.
    if (rule.flag === 'late_result' && f.supersede) {
      notes.push(`superseded by ${f.supersede.by} (${f.supersede.operator}: ${f.supersede.reason}); ferry still reads this order as before`);
    }
  }
  return { alerts, notes };
}
