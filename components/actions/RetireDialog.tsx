'use client';
/**
 * Retire an identity: a retirement plus one release (reason `retired`) per
 * order it holds by an active claim with no result, as the agent page listed them
 * (`retire_plan`). When a heartbeat of it arrived within the stale window it "looks alive":
 * the operator confirms twice (a checkbox, then typing its name), and the request carries
 * `confirm_alive: 2`.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { AgentResponse } from '@/lib/api/types';
import { fleetEffect, planChange, plannedFiles, refusalText, retireCheck, saysAlive, type PlanInput } from '@/lib/client/action-plan';
import { invalidateAfterAction, signAndSend } from '@/lib/client/actions';
import { useAgent } from '@/lib/client/api';
import type { OperatorKey } from '@/lib/client/keys';
import { useSignedAction } from '@/lib/client/use-signed-action';
import type { ActionInput } from '@/lib/ledger/actions';
import { useKeyGate } from '@/lib/client/operator';
import { channelOfCard } from '@/lib/ui/card-channel';
import { formatDuration } from '@/lib/ui/time';
import { useActions } from './context';
import { Dialog } from './Dialog';
import { DialogFooter, FilesToWrite, FleetEffect, GateNote, Refusal, RetireSteps, writtenToast } from './parts';
import { useToast } from './Toast';
import { field, note } from './ui';

const samePlan = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export function RetireDialog({ agent: opened, onClose }: { agent: AgentResponse; onClose: () => void }) {
  // In a hub, the identity's channel (the agent's answer names it): the key is checked and the act sent there.
  const channel = channelOfCard(opened);
  const gate = useKeyGate(channel);
  const qc = useQueryClient();
  const toast = useToast();
  const { written } = useActions();
  const reasonId = useId();
  const confirmNameId = useId();
  const [seen, setSeen] = useState<AgentResponse>(opened);
  const [openedAt, setOpenedAt] = useState(() => Date.now());
  const [reason, setReason] = useState('');
  const [aliveOk, setAliveOk] = useState(false);
  const [typed, setTyped] = useState('');
  // The server may find it alive when the page did not (a heartbeat just arrived): then ask twice too.
  const [serverSaysAlive, setServerSaysAlive] = useState(false);

  const name = seen.agent.name;
  const plan = [...seen.retire_plan].sort();
  const live = useAgent(name, channel);
  // `plan` and `name` as signed: the dialog may be reloaded onto the current list while it is sent.
  const action = useSignedAction({
    send: ({ input, key }: { input: ActionInput; key: OperatorKey; name: string; plan: readonly string[] }) => signAndSend(input, key),
    onWritten: (out, { key, name: sent, plan: released }) => {
      invalidateAfterAction(qc, released, sent, key.name);
      written(released);
      toast(writtenToast(out.written));
      onClose();
    },
    onRefused: (out) => {
      if (saysAlive(out)) setServerSaysAlive(true);
      if (out.status === 409) void live.refetch();
    },
  });
  const refusal = action.refusal;
  const sending = action.state === 'sending';
  const current = live.data && live.dataUpdatedAt >= openedAt ? live.data : null;
  const planMoved = current && !samePlan([...current.retire_plan].sort(), plan) ? current : null;

  const alive = seen.looks_alive || (current?.looks_alive ?? false) || serverSaysAlive;
  const confirmations = alive ? (aliveOk ? 1 : 0) + (aliveOk && typed.trim().toLowerCase() === name ? 1 : 0) : 0;
  const rule = retireCheck(seen.agent);
  const missingReason = reason.trim().length === 0;
  const canSend = gate.ok && !rule && !missingReason && !sending && (!alive || confirmations === 2) && refusal?.status !== 409;
  const planInput: PlanInput = { action: 'retire', agent: name, orders: plan };

  const reload = (to: AgentResponse) => {
    setSeen(to);
    setOpenedAt(Date.now());
    action.reset();
  };

  const submit = () => {
    if (!gate.key || !canSend) return;
    action.run({ input: { action: 'retire', agent: name, orders: plan, reason: reason.trim(), confirmAlive: alive ? 2 : 0, ...(channel ? { channel } : {}) }, key: gate.key, name, plan });
  };

  return (
    <Dialog
      onClose={onClose}
      title={`Retire ${name}`}
      description={`The identity ${name} is gone for good (its machine was rebuilt, its name replaced). Its claims are let go.`}
      testId="action-dialog-retire"
      wide
    >
      {planMoved && !refusal ? (
        <div className={note.warn} role="status">
          <p>
            What {name} holds changed while this dialog was open: {planChange(plan, planMoved.retire_plan)}. Signing now would be refused.
          </p>
          <button type="button" onClick={() => reload(planMoved)} className="mt-1 font-medium underline underline-offset-2">
            Use the current list
          </button>
        </div>
      ) : null}
      <GateNote />
      {rule ? (
        <p className={note.error} role="note" data-precheck="">
          Not allowed: {rule}.
        </p>
      ) : null}

      <section aria-label="orders it will release" className="text-sm">
        <h3 className="font-semibold">
          {plan.length === 0 ? `${name} holds no order by a claim without a result, and none is addressed to it` : `It releases ${name}'s claim on ${plan.length === 1 ? 'this order' : `these ${plan.length} orders`}; what ferry then does with each`}
        </h3>
        {plan.length > 0 ? (
          <div className="max-h-56 overflow-y-auto">
            <RetireSteps plan={plan} steps={samePlan((seen.retire_steps ?? []).map((x) => x.order_id).sort(), plan) ? seen.retire_steps : undefined} />
          </div>
        ) : null}
      </section>

      <form
        className="flex flex-col gap-4"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <div>
          <label htmlFor={reasonId} className="text-sm font-semibold">
            Why retire {name}? (required)
          </label>
          <textarea
            id={reasonId}
            required
            rows={2}
            maxLength={500}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            placeholder="e.g. machine rebuilt as fang-2"
            className={`${field} mt-1`}
            autoFocus
          />
        </div>

        {alive ? (
          <fieldset className={`${note.warn} flex flex-col gap-2`} data-looks-alive="">
            <legend className="sr-only">Confirm twice: it looks alive</legend>
            <p className="font-semibold">
              {name} looks alive: a heartbeat of it arrived here within the stale window ({formatDuration(seen.stale_after_ms)}).
            </p>
            <label className="flex items-start gap-2">
              <input type="checkbox" checked={aliveOk} onChange={(e) => setAliveOk(e.target.checked)} className="mt-0.5 size-4 shrink-0 pointer-coarse:size-6" />
              <span>it looks alive: its heartbeat arrived within the stale window — retire anyway</span>
            </label>
            {aliveOk ? (
              <div>
                <label htmlFor={confirmNameId} className="font-medium">
                  Second confirmation: type <span className="font-mono">{name}</span> to retire it while it may still be running
                </label>
                <input
                  id={confirmNameId}
                  value={typed}
                  onChange={(e) => setTyped(e.target.value)}
                  autoComplete="off"
                  spellCheck={false}
                  className={`${field} mt-1 font-mono`}
                />
              </div>
            ) : null}
          </fieldset>
        ) : null}

        <FilesToWrite files={plannedFiles(planInput, gate.key?.name ?? '<operator>', { channelFile: gate.channelFileNew })} />
        <FleetEffect lines={fleetEffect(planInput)} />

        {refusal ? (
          <Refusal
            status={refusal.status}
            text={refusalText(refusal.status, refusal.message)}
            {...(refusal.written ? { written: refusal.written } : {})}
            reload={
              refusal.status === 409
                ? {
                    label: `Reload what ${name} holds`,
                    onClick: () => void live.refetch().then((r) => (r.data ? reload(r.data) : action.reset())),
                  }
                : undefined
            }
          />
        ) : null}
        <DialogFooter
          localError={action.failure}
          onClose={onClose}
          danger
          canSend={canSend}
          submitLabel={sending ? 'Signing and writing…' : alive ? `Sign and retire ${name} anyway` : `Sign and retire ${name}`}
        />
      </form>
    </Dialog>
  );
}
