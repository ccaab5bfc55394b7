'use client';
/**
 * Supersede (lib/ledger/actions.ts): a new ferry order, signed by the operator, that does an old
 * order's work (its project, payload, review, approval, dependency and result-contract fields,
 * and `supersedes: <old id>`), plus a signed supersede record in the old order's folder. The act
 * that moves work in ferry where a release cannot: an order addressed to a retired or released
 * agent, a give-up, or a finished order to be done again (ferry has no reopen).
 *
 * Decided on the card as seen when the dialog opened; the old order's fields come from its order
 * answer. Pre-checked with the same rule the server applies; the server's refusal is shown
 * verbatim (a payload a browser cannot copy exactly is refused there, and said here beforehand).
 */
import { cardInChannel, channelOfCard } from '@/lib/ui/card-channel';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useState } from 'react';
import type { Card } from '@/lib/api/types';
import { ACTION_TITLE, fleetEffect, offersReload, plannedFiles, refusalText, saysIdTaken, type PlanInput } from '@/lib/client/action-plan';
import { invalidateAfterAction, signAndSend } from '@/lib/client/actions';
import { fetchOrder, isNotFound, useAgents, useOrder } from '@/lib/client/api';
import { queryKeys } from '@/lib/client/query-keys';
import type { OperatorKey } from '@/lib/client/keys';
import { useKeyGate } from '@/lib/client/operator';
import { useSignedAction } from '@/lib/client/use-signed-action';
import type { ActionInput } from '@/lib/ledger/actions';
import { addressees, defaultAddressee, isFinished, knownOrderIds, newIdProblem, payloadCopiesExactly, proposedId, supersedeCheck, supersedeInput } from '@/lib/client/supersede';
import { canonicalName } from '@/lib/ledger/names';
import { FERRY_STATE_LABEL } from '@/lib/ui/labels';
import { StateBadge } from '@/components/ui/badges';
import { useActions } from './context';
import { Dialog } from './Dialog';
import { DialogFooter, FilesToWrite, FleetEffect, GateNote, Refusal, writtenToast } from './parts';
import { useToast } from './Toast';
import { field, note } from './ui';

const sameDecision = (a: Card, b: Card) => a.state === b.state && a.holder === b.holder && (a.target ?? null) === (b.target ?? null);

/** `value`, once it has not changed for `ms`. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

export function SupersedeDialog({ card: opened, onClose }: { card: Card; onClose: () => void }) {
  const gate = useKeyGate(channelOfCard(opened));
  const qc = useQueryClient();
  const toast = useToast();
  const { written } = useActions();
  const idId = useId();
  const idHelpId = useId();
  const toId = useId();
  const toHelpId = useId();
  const reasonId = useId();
  const [card, setCard] = useState<Card>(opened);
  const [openedAt, setOpenedAt] = useState(() => Date.now());
  // The id as typed (null: the proposed one), the addressee as chosen (undefined: the default).
  const [idText, setIdText] = useState<string | null>(null);
  const [to, setTo] = useState<string | null | undefined>(undefined);
  const [reason, setReason] = useState('');
  // Ids the server says exist (probed, or named by a refusal): never proposed again.
  const [taken, setTaken] = useState<ReadonlySet<string>>(new Set());

  const live = useOrder(card.order_id, channelOfCard(card));
  // `card` and `newId` as signed: a refusal is about the id it was sent with.
  const action = useSignedAction({
    send: ({ input, key }: { input: ActionInput; key: OperatorKey; card: Card; newId: string }) => signAndSend(input, key),
    onWritten: (out, { key, card: sent, newId: issued }) => {
      invalidateAfterAction(qc, [sent.order_id, issued], sent.holder ?? undefined, key.name);
      written([sent.order_id], channelOfCard(sent));
      toast(writtenToast(out.written));
      onClose();
    },
    onRefused: (out, { newId: refusedId }) => {
      if (saysIdTaken(out)) setTaken((t) => new Set(t).add(refusedId));
      if (out.status === 409) void live.refetch();
    },
  });
  const refusal = action.refusal;
  const sending = action.state === 'sending';
  const current = live.data && live.dataUpdatedAt >= openedAt ? live.data.card : null;
  const moved = current && !sameDecision(current, card) ? current : null;
  const order = live.data?.order ?? null;
  const agents = useAgents();

  // The ids this page knows of: every board, lane and order answer in its cache, and the probes.
  const known = useMemo(() => {
    const answers = [...qc.getQueriesData({ queryKey: queryKeys.boardAll() }), ...qc.getQueriesData({ queryKey: queryKeys.orderAll() })].map(([, d]) => d);
    const ids = knownOrderIds(answers);
    for (const t of taken) ids.add(t);
    return ids;
    // The cache is read again whenever the order's answer or the probes change.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- live.dataUpdatedAt is not read inside: it says when the query cache (outside React) holds a new answer
  }, [qc, taken, live.dataUpdatedAt]);
  const proposal = proposedId(card, known);
  const newIdRaw = idText ?? proposal;
  const newId = canonicalName(newIdRaw);
  const idProblem = newIdProblem(newIdRaw, card, known);

  // Ask the server whether an order of that id exists (the board's pages do not list every order).
  const probeId = useSettled(idProblem === null ? newId : '', 250);
  const probe = useQuery({
    queryKey: queryKeys.orderExists(probeId),
    queryFn: async ({ signal }) => {
      try {
        await fetchOrder(probeId, signal);
        return true;
      } catch (e) {
        if (isNotFound(e)) return false;
        throw e;
      }
    },
    enabled: probeId !== '',
    retry: false,
    staleTime: 0,
  });
  useEffect(() => {
    if (probe.data === true && probeId) setTaken((t) => (t.has(probeId) ? t : new Set(t).add(probeId)));
  }, [probe.data, probeId]);
  const idChecked = probeId === newId && probe.data === false;

  const choices = useMemo(() => addressees(agents.data?.agents ?? [], card), [agents.data, card]);
  const assignTo = to === undefined ? defaultAddressee(card, choices) : to;
  const goneHolder = card.flags.includes('retired_holder') ? card.holder : null;

  const rule = supersedeCheck(card);
  const exact = order ? payloadCopiesExactly(order.payload, order.payload_digest) : true;
  const missingReason = reason.trim().length === 0;
  const plan: PlanInput = { action: 'supersede', orderId: card.order_id, newId: newId || '<new id>', assignTo };
  const blockedBy409 = refusal?.status === 409 && action.sent?.newId === newId;
  const canSend = gate.ok && !rule && !idProblem && !missingReason && order !== null && !sending && !blockedBy409;

  const reload = (next: Card) => {
    setCard(cardInChannel(next, channelOfCard(opened)));
    setOpenedAt(Date.now());
    action.reset();
  };

  const submit = () => {
    if (!gate.key || !canSend || !order) return;
    action.run({ input: supersedeInput(card, order, newId, assignTo, reason), key: gate.key, card, newId });
  };

  const finished = isFinished(card);
  return (
    <Dialog
      onClose={onClose}
      title={finished ? `Do ${card.order_id} again in ferry` : `${ACTION_TITLE.supersede} for ${card.order_id}`}
      description={<DecisionLine card={card} />}
      testId="action-dialog-supersede"
      wide
    >
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

      {live.isError && !order ? (
        <p className={note.error} role="alert">
          Could not read {card.order_id}&apos;s order: {live.error instanceof Error ? live.error.message : String(live.error)}
        </p>
      ) : null}
      {order && !exact ? (
        <div className={note.warn} role="note" data-payload-inexact="">
          <p className="font-semibold">Its payload cannot be copied exactly in a browser.</p>
          <p className="mt-0.5">
            It holds a number beyond JavaScript&apos;s precision (or a -0): the copy would not be the same task, and the server will refuse it. Issue the new order from a
            terminal instead: <code className="font-mono text-xs break-all">npx claimboard supersede &lt;channel&gt; {card.order_id} --key &lt;seed&gt; --reason …</code>
          </p>
        </div>
      ) : null}

      <form
        className="flex flex-col gap-4"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <div className="grid gap-4 sm:grid-cols-2">
          <div>
            <label htmlFor={idId} className="text-sm font-semibold">
              New order id
            </label>
            <input
              id={idId}
              aria-describedby={idHelpId}
              aria-invalid={idProblem !== null}
              value={newIdRaw}
              onChange={(e) => {
                setIdText(e.target.value);
                if (refusal?.status === 409) action.reset();
              }}
              autoComplete="off"
              spellCheck={false}
              maxLength={200}
              className={`${field} mt-1 font-mono`}
            />
            <p id={idHelpId} className={`mt-1 text-xs ${idProblem ? 'text-red-700 dark:text-red-300' : 'text-zinc-500 dark:text-zinc-400'}`} data-id-check="">
              {idProblem ?? (idChecked ? 'no order has this id yet' : probe.isFetching || probeId !== newId ? 'checking…' : 'a new folder tasks/<id>/')}
            </p>
          </div>
          <div>
            <label htmlFor={toId} className="text-sm font-semibold">
              Address it to
            </label>
            <select
              id={toId}
              aria-describedby={toHelpId}
              value={assignTo ?? ''}
              onChange={(e) => setTo(e.target.value === '' ? null : e.target.value)}
              className={`${field} mt-1`}
            >
              <option value="">any worker (the first to claim it)</option>
              {choices.map((c) => (
                <option key={c.name} value={c.name}>
                  {c.name} ({c.role})
                </option>
              ))}
            </select>
            <p id={toHelpId} className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
              {agents.isPending
                ? 'reading the roster…'
                : `roster agents that are not retired${goneHolder ? `; not ${goneHolder}, retired here` : ''}`}
            </p>
          </div>
        </div>

        <div>
          <label htmlFor={reasonId} className="text-sm font-semibold">
            Why supersede it? (required)
          </label>
          <textarea
            id={reasonId}
            required
            rows={2}
            maxLength={500}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            placeholder={finished ? 'e.g. the result was wrong: do it again' : 'e.g. wisp is gone for good; nebra takes it'}
            className={`${field} mt-1`}
            autoFocus
          />
          <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">Written in the supersede record and in your ledger.</p>
        </div>

        {order ? <Copies order={order} /> : <p className="text-sm text-zinc-500 dark:text-zinc-400">Reading {card.order_id}&apos;s order…</p>}

        <FilesToWrite files={plannedFiles(plan, gate.key?.name ?? '<operator>', { channelFile: gate.channelFileNew })} />
        <FleetEffect lines={fleetEffect(plan)} />

        {refusal ? (
          <Refusal
            status={refusal.status}
            text={refusalText(refusal.status, refusal.message)}
            {...(refusal.written ? { written: refusal.written } : {})}
            reload={
              offersReload(refusal)
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
          danger={false}
          canSend={canSend}
          submitLabel={sending ? 'Signing and writing…' : `Sign and issue ${newId || 'the new order'}`}
        />
        {missingReason && gate.ok && !rule ? <p className="-mt-2 text-right text-xs text-zinc-500 dark:text-zinc-400">Write a reason to enable the button.</p> : null}
      </form>
    </Dialog>
  );
}

/** What the decision is on: the order's state and assignee, and how ferry reads it now. */
function DecisionLine({ card }: { card: Card }) {
  return (
    <span data-decision="">
      You see <span className="font-mono">{card.order_id}</span> <StateBadge state={card.state} />{' '}
      {card.assigned_to ? `addressed to ${card.assigned_to}` : card.holder ? `held by ${card.holder}` : 'with no holder'}
      {` · ferry reads it as ${FERRY_STATE_LABEL[card.ferry.state]}${card.ferry.holder ? ` (${card.ferry.holder})` : ''}`}
    </span>
  );
}

/** What the new order copies from the old one, in one line. */
function Copies({ order }: { order: NonNullable<ReturnType<typeof useOrder>['data']>['order'] }) {
  const parts = [
    `project ${order.project_id}`,
    'its payload',
    order.requires_review ? 'review required' : 'no review',
    ...(order.requires_approval ? ['approval required'] : []),
    order.depends_on.length ? `after ${order.depends_on.join(', ')}` : 'no dependencies',
    ...(order.result_contract ? [`result must carry ${order.result_contract.required.join(', ')}`] : []),
  ];
  return (
    <p className="text-sm text-zinc-700 dark:text-zinc-300" data-copies="">
      <span className="font-semibold">It copies from {order.id}:</span> {parts.join(' · ')}.
    </p>
  );
}
