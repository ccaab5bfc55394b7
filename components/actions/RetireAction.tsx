'use client';
/** "Retire <agent>…" on the agent page: what it would release, disabled with the reason when not allowed. */
import type { AgentResponse } from '@/lib/api/types';
import { retireCheck } from '@/lib/client/action-plan';
import { useKeyGate } from '@/lib/client/operator';
import { useActions } from './context';
import { GateLine, RetireSteps } from './parts';
import { btn } from './ui';

/** Orders named in the line before the dialog; the rest are counted (an agent of a big channel can hold hundreds). */
const PLAN_NAMED = 12;

export function RetireAction({ data }: { data: AgentResponse }) {
  const gate = useKeyGate();
  const { openRetire } = useActions();
  const a = data.agent;
  if (a.retired) return null; // the retirement box says who retired it and why
  const rule = retireCheck(a);
  const blocked = gate.ok ? rule : gate.message;
  const plan = data.retire_plan;
  return (
    <section aria-label="operator actions" className="mt-3 rounded-md border border-zinc-200 px-3 py-2 dark:border-zinc-800" data-agent-actions="">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <h2 className="text-sm font-semibold">Operator actions</h2>
        <button type="button" className={btn.danger} disabled={blocked !== null} title={blocked ?? undefined} onClick={() => openRetire(data)}>
          Retire {a.name}…
        </button>
        <p className="text-sm text-zinc-700 dark:text-zinc-300">
          {data.looks_alive ? 'It looks alive: a heartbeat of it arrived within the stale window. ' : ''}
          {plan.length === 0
            ? 'It holds no order by a claim without a result, and none is addressed to it: no release would be written.'
            : `Would write a retirement and ${plan.length === 1 ? 'one release' : `${plan.length.toLocaleString('en')} releases`}; what ferry then does with each order:`}
        </p>
      </div>
      {plan.length > 0 ? <RetireSteps plan={plan} steps={data.retire_steps} max={PLAN_NAMED} linked /> : null}
      {!gate.ok ? (
        <GateLine className="mt-1.5 text-sm text-zinc-700 dark:text-zinc-300" />
      ) : null}
    </section>
  );
}
