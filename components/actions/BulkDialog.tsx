'use client';
/**
 * Re-queue or acknowledge many orders at once (a lane selection, at most 500): each order is
 * checked against its card as the operator selected it, the ledger lines are chained, and the
 * server answers one by one. After the first refusal the rest are not applied ("sign again"):
 * "Retry the ones not applied" signs those again. In a hub the orders are of one channel, signed
 * for it and sent there; a selection spanning channels is refused here, before anything is signed.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import type { Card, Lane } from '@/lib/api/types';
import { ackCheck, ackPlan, bulkFleetEffect, bulkOutcome, BULK_MAX, CHANNEL_FILE_PLAN, notAppliedText, plannedFiles, requeueCheck, type BulkResult, type PlannedFile } from '@/lib/client/action-plan';
import { invalidateAfterAction, signAndSendBulk } from '@/lib/client/actions';
import type { OperatorKey } from '@/lib/client/keys';
import { useKeyGate } from '@/lib/client/operator';
import { useSignedAction } from '@/lib/client/use-signed-action';
import type { ActionInput } from '@/lib/ledger/actions';
import { ledgerPathOf } from '@/lib/ledger/actions';
import { cardKey, channelsOf } from '@/lib/ui/card-channel';
import { LANE_TITLE } from '@/lib/ui/labels';
import { useActions } from './context';
import { Dialog } from './Dialog';
import { FilesToWrite, FleetEffect, GateNote, SignerLine, writtenToast } from './parts';
import { useToast } from './Toast';
import { btn, field, note } from './ui';

type Row = { readonly card: Card; readonly outcome: 'written' | 'not_applied' | 'refused' } & Pick<BulkResult, 'written' | 'reason' | 'reason_code'>;

export function BulkDialog({ kind, lane, cards, onClose }: { kind: 'requeue' | 'ack'; lane: Lane; cards: readonly Card[]; onClose: () => void }) {
  const channels = useMemo(() => channelsOf(cards), [cards]);
  const channel = channels[0];
  const gate = useKeyGate(channel);
  const qc = useQueryClient();
  const toast = useToast();
  const { written } = useActions();
  const noteId = useId();
  const [text, setText] = useState('');
  const [rows, setRows] = useState<Map<string, Row> | null>(null);
  const action = useSignedAction({
    send: ({ inputs, key }: { inputs: readonly ActionInput[]; key: OperatorKey; batch: readonly Card[] }) => signAndSendBulk(inputs, key),
    onWritten: (out, { key, batch }) => {
      const byId = new Map(batch.map((c) => [c.order_id, c]));
      setRows((prev) => {
        const next = new Map(prev ?? []);
        out.results.forEach((r: BulkResult, i) => {
          const card = (r.order_id ? byId.get(r.order_id) : undefined) ?? batch[i];
          if (!card) return;
          next.set(card.order_id, { card, outcome: bulkOutcome(r), ...(r.written ? { written: r.written } : {}), ...(r.reason ? { reason: r.reason } : {}), ...(r.reason_code ? { reason_code: r.reason_code } : {}) });
        });
        return next;
      });
      const done = out.results.filter((r) => r.status === 201);
      const ids = done.map((r) => r.order_id).filter((x): x is string => !!x);
      const paths = done.flatMap((r) => r.written ?? []);
      if (ids.length > 0) {
        invalidateAfterAction(qc, ids, undefined, key.name);
        written(ids, channel);
        toast(writtenToast([...new Set(paths)]));
      }
    },
  });
  const sending = action.state === 'sending';
  // A refusal of the whole request (each action's own refusal is a row), or a send that failed.
  const error = action.refusal ? `the server refused the whole request (${action.refusal.status}): ${action.refusal.message}` : action.failure;

  const check = kind === 'requeue' ? requeueCheck : ackCheck;
  const { eligible, skipped } = useMemo(() => {
    const e: Card[] = [];
    const s: { card: Card; reason: string }[] = [];
    for (const c of cards.slice(0, BULK_MAX)) {
      const r = check(c);
      if (r) s.push({ card: c, reason: r });
      else e.push(c);
    }
    return { eligible: e, skipped: s };
  }, [cards, check]);

  const op = gate.key?.name ?? '<operator>';
  const files: PlannedFile[] = useMemo(() => {
    const out: PlannedFile[] = gate.channelFileNew ? [CHANNEL_FILE_PLAN] : [];
    for (const c of eligible) {
      const plan = kind === 'requeue' ? (c.holder ? plannedFiles({ action: 'requeue', orderId: c.order_id, holder: c.holder }, op) : []) : ((a) => (a ? plannedFiles(a, op) : []))(ackPlan(c, op));
      out.push(...plan.slice(0, -1));
    }
    out.push({ path: ledgerPathOf(op), how: 'append', what: `${eligible.length} signed ${eligible.length === 1 ? 'line' : 'lines'} appended to ${op}'s ledger, chained` });
    return out;
  }, [eligible, kind, op, gate.channelFileNew]);

  const verb = kind === 'requeue' ? 'Re-queue' : 'Acknowledge';
  const missingText = kind === 'requeue' && text.trim().length === 0;
  const notApplied = rows ? [...rows.values()].filter((r) => r.outcome === 'not_applied') : [];

  const mixed = channels.length > 1;
  const send = (batch: readonly Card[]) => {
    if (!gate.key || !gate.ok || batch.length === 0 || mixed) return;
    const inputs: ActionInput[] = batch.map((card) => (kind === 'requeue' ? { action: 'requeue', card, note: text.trim() } : { action: 'ack', card, note: text.trim() }));
    action.run({ inputs, key: gate.key, batch });
  };

  const counts = rows
    ? [...rows.values()].reduce((m, r) => ({ ...m, [r.outcome]: (m[r.outcome] ?? 0) + 1 }), {} as Partial<Record<Row['outcome'], number>>)
    : {};

  return (
    <Dialog
      onClose={onClose}
      title={`${verb} ${eligible.length} selected ${eligible.length === 1 ? 'order' : 'orders'}`}
      description={`From the ${LANE_TITLE[lane]} lane, each checked against its card as you selected it.`}
      testId={`bulk-dialog-${kind}`}
      wide
    >
      {mixed ? (
        <p role="alert" className={note.error} data-bulk-channels={channels.join(' ')}>
          These orders are in {channels.length} channels ({channels.join(', ')}): an act is signed for one channel, so nothing is signed. Select the orders of one
          channel (the Channel filter above the board) and try again.
        </p>
      ) : (
        <GateNote channel={channel} />
      )}
      {skipped.length > 0 ? (
        <details className={note.info}>
          <summary className="cursor-pointer">
            {skipped.length} selected {skipped.length === 1 ? 'order is' : 'orders are'} left out: {kind === 'requeue' ? 're-queue' : 'acknowledge'} does not apply
          </summary>
          <ul className="mt-1 list-disc pl-5 text-xs">
            {skipped.map((s) => (
              <li key={cardKey(s.card)}>{s.reason}</li>
            ))}
          </ul>
        </details>
      ) : null}

      {rows ? (
        <section aria-label="results" className="flex flex-col gap-2">
          <p className="text-sm font-semibold" role="status">
            {counts.written ?? 0} written · {counts.refused ?? 0} refused · {counts.not_applied ?? 0} not applied
          </p>
          <ul className="max-h-72 divide-y divide-zinc-100 overflow-y-auto rounded-md border border-zinc-200 text-sm dark:divide-zinc-800 dark:border-zinc-800" data-bulk-results="">
            {[...rows.values()].map((r) => (
              <li key={r.card.order_id} className="px-2.5 py-1.5" data-result={r.outcome} data-order-result={r.card.order_id}>
                <span className="font-mono font-medium">{r.card.order_id}</span>{' '}
                {r.outcome === 'written' ? (
                  <span className="text-emerald-800 dark:text-emerald-300">written: {(r.written ?? []).join(', ')}</span>
                ) : r.outcome === 'refused' ? (
                  <span className="text-red-800 dark:text-red-300">refused: {r.reason}</span>
                ) : (
                  <span className="text-amber-800 dark:text-amber-300">{notAppliedText(r)}</span>
                )}
              </li>
            ))}
          </ul>
        </section>
      ) : (
        <form
          id={noteId + '-form'}
          className="flex flex-col gap-4"
          onSubmit={(e) => {
            e.preventDefault();
            send(eligible);
          }}
        >
          <div>
            <label htmlFor={noteId} className="text-sm font-semibold">
              {kind === 'requeue' ? 'Why re-queue them? (required, the same note for each)' : 'Note (optional, the same for each)'}
            </label>
            <textarea id={noteId} rows={2} maxLength={500} value={text} onChange={(e) => setText(e.target.value)} className={`${field} mt-1`} autoFocus required={kind === 'requeue'} />
          </div>
          {eligible.length > 0 ? <FilesToWrite files={files} /> : null}
          {eligible.length > 0 ? <FleetEffect lines={bulkFleetEffect(kind, eligible.length, eligible.filter((c) => c.flags.includes('late_result')).length, eligible.filter((c) => c.state === 'gave_up').length)} /> : null}
        </form>
      )}
      {error ? (
        <p role="alert" className={note.error}>
          {error}
        </p>
      ) : null}

      <div className="flex flex-wrap items-center justify-between gap-3 border-t border-zinc-200 pt-3 dark:border-zinc-800">
        <SignerLine channel={channel} />
        <div className="ml-auto flex gap-2">
          <button type="button" className={btn.secondary} onClick={onClose}>
            {rows ? 'Close' : 'Cancel'}
          </button>
          {rows ? (
            notApplied.length > 0 ? (
              <button type="button" className={btn.primary} disabled={sending || !gate.ok} onClick={() => send(notApplied.map((r) => r.card))}>
                {sending ? 'Signing and writing…' : `Retry the ${notApplied.length} not applied`}
              </button>
            ) : null
          ) : (
            <button type="submit" form={noteId + '-form'} className={kind === 'requeue' ? btn.danger : btn.primary} disabled={!gate.ok || sending || missingText || eligible.length === 0 || mixed}>
              {sending ? 'Signing and writing…' : `Sign and ${kind === 'requeue' ? 're-queue' : 'acknowledge'} ${eligible.length}`}
            </button>
          )}
        </div>
      </div>
    </Dialog>
  );
}
