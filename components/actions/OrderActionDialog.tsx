'use client';
/**
 * Re-queue, reopen and acknowledge on one order, from the card the operator saw
 * when opening the dialog: what it decides on, the reason, the files it writes, what the fleet
 * will do. Pre-checked with the same rules the server applies; the server's refusal is shown
 * verbatim. A 409 offers to reload the card and decide again.
 */
import { cardInChannel, channelOfCard } from '@/lib/ui/card-channel';
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { Card } from '@/lib/api/types';
import { ackTargetOf, reopenTargetOf } from '@/lib/ledger/actions';
import { ackCheck, ackPlan, ackWhat, ACTION_TITLE, fleetEffect, plannedFiles, refusalText, reopenCheck, requeueCheck, type PlanInput } from '@/lib/client/action-plan';
import { invalidateAfterAction, signAndSend } from '@/lib/client/actions';
import { useOrder } from '@/lib/client/api';
import type { OperatorKey } from '@/lib/client/keys';
import { useSignedAction } from '@/lib/client/use-signed-action';
import { supersedeCheck, supersedeRelevant } from '@/lib/client/supersede';
import { useKeyGate } from '@/lib/client/operator';
import type { ActionInput } from '@/lib/ledger/actions';
import { StateBadge } from '@/components/ui/badges';
import { FERRY_STATE_LABEL } from '@/lib/ui/labels';
import { useActions, type OrderActionKind } from './context';
import { Dialog } from './Dialog';
import { DialogFooter, FilesToWrite, FleetEffect, GateNote, Refusal, writtenToast } from './parts';
import { useToast } from './Toast';
import { btn, field, note } from './ui';

/** The kinds this dialog takes (supersede has its own, SupersedeDialog). */
type Kind = Exclude<OrderActionKind, 'supersede'>;

const PROMPT: Record<Kind, { label: string; placeholder: string; required: boolean; help: string }> = {
  requeue: {
    label: 'Why re-queue it? (required)',
    placeholder: 'e.g. the machine was rebooted; the run is gone',
    required: true,
    help: 'Written in the release as “requeued: <your note>”, and in your ledger.',
  },
  reopen: {
    label: 'Why reopen it? (required)',
    placeholder: 'e.g. the result was wrong: the tests did not run',
    required: true,
    help: 'Written in the reopen record and in your ledger.',
  },
  ack: {
    label: 'Note (optional)',
    placeholder: 'e.g. will re-issue as a smaller order; or: redo it, the result is from a stale branch',
    required: false,
    help: 'Written in the acknowledgement and in your ledger.',
  },
};

const sameDecision = (a: Card, b: Card) => a.state === b.state && a.holder === b.holder && (a.target ?? null) === (b.target ?? null) && (a.late_target ?? null) === (b.late_target ?? null);

/** A target with each 64-hex digest cut to 12 digits (every target it lists stays readable). */
function short(target: string): string {
  return target.replace(/([0-9a-f]{12})[0-9a-f]{52}/g, '$1…');
}

export function OrderActionDialog({ kind, card: opened, onClose }: { kind: Kind; card: Card; onClose: () => void }) {
  const gate = useKeyGate(channelOfCard(opened));
  const qc = useQueryClient();
  const toast = useToast();
  const { written, openOrderAction } = useActions();
  const reasonId = useId();
  const helpId = useId();
  // What the operator decides on: the card as seen when the dialog opened (or after "reload").
  const [card, setCard] = useState<Card>(opened);
  const [openedAt, setOpenedAt] = useState(() => Date.now());
  const [text, setText] = useState('');

  // The order as it is now (live): dependents for reopen, and whether it moved while open.
  const live = useOrder(card.order_id, channelOfCard(card));
  // `card` is the one signed: the dialog may be reloaded onto another while it is sent.
  const action = useSignedAction({
    send: ({ input, key }: { input: ActionInput; key: OperatorKey; card: Card }) => signAndSend(input, key),
    onWritten: (out, { key, card: sent }) => {
      invalidateAfterAction(qc, [sent.order_id], sent.holder ?? undefined, key.name);
      written([sent.order_id], channelOfCard(sent));
      toast(writtenToast(out.written));
      onClose();
    },
    onRefused: (out) => {
      if (out.status === 409) void live.refetch();
    },
  });
  const refusal = action.refusal;
  const sending = action.state === 'sending';
  const current = live.data && live.dataUpdatedAt >= openedAt ? live.data.card : null;
  const dependents = live.data?.dependents ?? [];
  const moved = current && !sameDecision(current, card) ? current : null;

  const rule = kind === 'requeue' ? requeueCheck(card) : kind === 'ack' ? ackCheck(card) : reopenCheck(card, dependents);
  const prompt = PROMPT[kind];
  const missingText = prompt.required && text.trim().length === 0;
  // The files name what this operator's earlier file named too (one per operator and order).
  const operator = gate.key?.name ?? '';
  const plan: PlanInput | null =
    kind === 'requeue'
      ? card.holder
        ? { action: 'requeue', orderId: card.order_id, holder: card.holder, assignedTo: card.assigned_to }
        : null
      : kind === 'ack'
        ? ackPlan(card, operator)
        : ((t) => (t ? { action: kind, orderId: card.order_id, target: t, decides: card.target ?? t } : null))(reopenTargetOf(card, operator));
  // Where a new order is what makes the fleet do it (ferry has no reopen; an addressed order stays its assignee's).
  const instead =
    supersedeRelevant(card) && supersedeCheck(card) === null && (kind === 'reopen' || (kind === 'requeue' && card.assigned_to !== null))
      ? kind === 'reopen'
        ? `To have the fleet do ${card.order_id} again, issue a new order for its work.`
        : `To give ${card.order_id} to another agent, issue a new order for its work.`
      : null;
  // After a 409 the decision is on a card that no longer holds: reload it first.
  const canSend = gate.ok && !rule && !missingText && !sending && plan !== null && refusal?.status !== 409;

  const reload = (to: Card) => {
    setCard(cardInChannel(to, channelOfCard(opened)));
    setOpenedAt(Date.now());
    action.reset();
  };

  const submit = () => {
    if (!gate.key || !canSend) return;
    const input: ActionInput =
      kind === 'requeue' ? { action: 'requeue', card, note: text.trim() } : kind === 'reopen' ? { action: 'reopen', card, reason: text.trim() } : { action: 'ack', card, note: text.trim() };
    action.run({ input, key: gate.key, card });
  };

  const title = kind === 'ack' ? `Acknowledge ${ackWhat(card)} on ${card.order_id}` : `${ACTION_TITLE[kind]} ${card.order_id}`;
  return (
    <Dialog onClose={onClose} title={title} description={<DecisionLine kind={kind} card={card} operator={operator} />} testId={`action-dialog-${kind}`}>
      {moved && !refusal ? (
        <div className={note.warn} role="status">
          <p>
            The board changed while this dialog was open: {moved.order_id} is now {moved.state.replace('_', ' ')}
            {moved.holder ? ` held by ${moved.holder}` : ''}. Signing now would be refused.
          </p>
          <button type="button" onClick={() => reload(moved)} className="mt-1 font-medium underline underline-offset-2">
            Decide on the current card
          </button>
        </div>
      ) : null}

      <GateNote channel={channelOfCard(card)} />

      {rule ? (
        <div className={note.error} role="note" data-precheck="">
          <p className="font-semibold">Not allowed now:</p>
          <p className="mt-0.5">{rule}</p>
        </div>
      ) : null}

      <form
        className="flex flex-col gap-4"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <div>
          <label htmlFor={reasonId} className="text-sm font-semibold">
            {prompt.label}
          </label>
          <textarea
            id={reasonId}
            aria-describedby={helpId}
            required={prompt.required}
            rows={2}
            maxLength={500}
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder={prompt.placeholder}
            className={`${field} mt-1`}
            autoFocus
          />
          <p id={helpId} className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
            {prompt.help}
          </p>
        </div>

        {plan && gate.key ? <FilesToWrite files={plannedFiles(plan, gate.key.name, { channelFile: gate.channelFileNew })} /> : null}
        {plan && !gate.key ? <FilesToWrite files={plannedFiles(plan, '<operator>', { channelFile: gate.channelFileNew })} title="It would write these files (your name in place of <operator>)" /> : null}
        {plan ? <FleetEffect lines={fleetEffect(plan)} /> : null}
        {instead ? (
          <div className={`${note.info} flex flex-wrap items-center justify-between gap-2`} data-supersede-instead="">
            <p>{instead}</p>
            <button type="button" className={btn.secondary} onClick={() => openOrderAction('supersede', card)}>
              Supersede instead…
            </button>
          </div>
        ) : null}

        {refusal ? (
          <Refusal
            status={refusal.status}
            text={refusalText(refusal.status, refusal.message)}
            {...(refusal.written ? { written: refusal.written } : {})}
            reload={
              refusal.status === 409
                ? {
                    label: 'Reload the card',
                    onClick: () => {
                      const now = refusal.card ?? current;
                      if (now) reload(now);
                      else void live.refetch().then((r) => (r.data ? reload(r.data.card) : action.reset()));
                    },
                  }
                : undefined
            }
          />
        ) : null}
        <DialogFooter
          localError={action.failure}
          onClose={onClose}
          danger={kind === 'requeue'}
          canSend={canSend}
          submitLabel={sending ? 'Signing and writing…' : kind === 'ack' ? 'Sign and acknowledge' : `Sign and ${kind === 'requeue' ? 're-queue' : 'reopen'}`}
        />
        {missingText && gate.ok && !rule ? <p className="-mt-2 text-right text-xs text-zinc-500 dark:text-zinc-400">Write a reason to enable the button.</p> : null}
      </form>
    </Dialog>
  );
}

/** What the decision is on: the order's state, holder and target as the operator sees them. */
function DecisionLine({ kind, card, operator }: { kind: Kind; card: Card; operator: string }) {
  const why = card.reason && (card.state === 'gave_up' || card.state === 'stale') ? (card.state === 'stale' ? card.reason.replace('_', ' ') : `“${card.reason}”`) : null;
  // What the record will name: an ack's own target (a give-up, late results, or both), else the card's.
  const named = kind === 'requeue' ? null : kind === 'ack' ? ackTargetOf(card, operator) : reopenTargetOf(card, operator);
  return (
    <span data-decision="">
      You see <span className="font-mono">{card.order_id}</span> <StateBadge state={card.state} /> {card.holder ? `held by ${card.holder}` : 'with no holder'}
      {why ? ` (${why})` : ''}
      {card.ferry ? ` · ferry reads it as ${FERRY_STATE_LABEL[card.ferry.state]}${card.ferry.holder ? ` (${card.ferry.holder})` : ''}` : ''}
      {named ? (
        <>
          {' · decision names '}
          <code className="font-mono text-xs" title={named}>
            {short(named)}
          </code>
        </>
      ) : null}
    </span>
  );
}
