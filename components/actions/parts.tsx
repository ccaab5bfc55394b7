'use client';
/** Pieces every action dialog shows: the files it writes, what the fleet does, who signs, refusals. */
import { useEffect, useRef } from 'react';
import type { PlannedFile } from '@/lib/client/action-plan';
import type { RetireStep } from '@/lib/ledger/actions';
import { OrderLink } from '@/components/ui/links';
import { useKeyGate } from '@/lib/client/operator';
import { useActions } from './context';
import { btn, note } from './ui';

const HOW: Record<PlannedFile['how'], string> = {
  new: 'new file',
  replace: 'new file, or rewrites your own earlier one',
  append: 'appended',
};

/** "It will write": each channel-relative path and what it is. */
export function FilesToWrite({ files, title = 'It will write these files in the channel folder' }: { files: readonly PlannedFile[]; title?: string }) {
  return (
    <section aria-label="files it will write">
      <h3 className="text-sm font-semibold">{title}</h3>
      <ul className="mt-1.5 max-h-56 divide-y divide-zinc-100 overflow-y-auto rounded-md border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800" data-files="">
        {files.map((f) => (
          <li key={f.path} className="px-2.5 py-1.5">
            <code className="block font-mono text-[13px] break-all text-zinc-950 dark:text-zinc-50" data-path={f.path}>
              {f.path}
            </code>
            <span className="block text-xs text-zinc-600 dark:text-zinc-400">
              {f.what} · {HOW[f.how]}
            </span>
          </li>
        ))}
      </ul>
      <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">Nothing else is written, and nothing is deleted. Each file is signed with your key in this browser.</p>
    </section>
  );
}

/**
 * A retirement's releases, one row per order: the order and what ferry then does with it
 * (`steps`, the act's own reading); the bare ids when the server could not read the folder.
 */
export function RetireSteps({ plan, steps, max, linked = false }: { plan: readonly string[]; steps?: readonly RetireStep[]; max?: number; linked?: boolean }) {
  const rows = steps ?? plan.map((order_id) => ({ order_id, effect: null }));
  const shown = max === undefined ? rows : rows.slice(0, max);
  return (
    <ul className="mt-1 divide-y divide-zinc-100 rounded-md border border-zinc-200 text-sm dark:divide-zinc-800 dark:border-zinc-800" data-retire-plan="">
      {shown.map((s) => (
        <li key={s.order_id} className="px-2.5 py-1" data-retire-order={s.order_id}>
          {linked ? <OrderLink id={s.order_id} className="text-[13px]" /> : <code className="font-mono text-[13px]">{s.order_id}</code>}
          {s.effect ? <span className="text-zinc-700 dark:text-zinc-300" data-retire-effect="">{`: ${s.effect}`}</span> : null}
        </li>
      ))}
      {shown.length < rows.length ? (
        <li className="px-2.5 py-1 text-zinc-600 dark:text-zinc-400">and {(rows.length - shown.length).toLocaleString('en')} more (the dialog lists them all)</li>
      ) : null}
    </ul>
  );
}

/** "What the fleet will do": plain sentences. */
export function FleetEffect({ lines }: { lines: readonly string[] }) {
  return (
    <section aria-label="what the fleet will do">
      <h3 className="text-sm font-semibold">What the fleet will do</h3>
      <ul className="mt-1 list-disc space-y-1 pl-5 text-sm text-zinc-800 dark:text-zinc-200">
        {lines.map((l) => (
          <li key={l}>{l}</li>
        ))}
      </ul>
    </section>
  );
}

/** "Not offered: <why>." with a way to fix it (on a card of a hub's `channel`: there); a neutral line while the server is being asked. */
export function GateLine({ className = '', channel }: { className?: string; channel?: string | undefined }) {
  const gate = useKeyGate(channel);
  const { openKeyPanel } = useActions();
  if (gate.ok) return null;
  if (gate.code === 'checking') {
    return (
      <p className={className} data-gate={gate.code}>
        Checking {gate.key?.name ?? 'the key'} against the roster…
      </p>
    );
  }
  return (
    <p className={className} data-gate={gate.code}>
      Not offered: {gate.message}.{' '}
      <button type="button" onClick={openKeyPanel} className="font-medium underline underline-offset-2">
        {gate.key ? 'Change the operator key' : 'Sign in as operator'}
      </button>
    </p>
  );
}

/** Why the action cannot be signed with the current key (in a hub's `channel`), in a dialog; null when it can. */
export function GateNote({ channel }: { channel?: string | undefined } = {}) {
  const gate = useKeyGate(channel);
  if (gate.ok) return null;
  return (
    <div className={gate.code === 'checking' ? note.info : note.warn} role="note">
      <GateLine channel={channel} />
    </div>
  );
}

/** "Signed in this browser as ops": under the form, beside the buttons (the gate of a hub's `channel`). */
export function SignerLine({ channel }: { channel?: string | undefined } = {}) {
  const gate = useKeyGate(channel);
  if (!gate.ok || !gate.key) return null;
  return (
    <p className="text-xs text-zinc-500 dark:text-zinc-400">
      Signed in this browser as <span className="font-medium text-zinc-700 dark:text-zinc-200">{gate.key.name}</span>; only the signed records leave it, never the key.
    </p>
  );
}

/**
 * The server's refusal, its message verbatim; 409s offer to reload what the decision was on. An
 * act partly written (`written`: what was) says so instead of "nothing was written".
 */
export function Refusal({ status, text, reload, written }: { status: number; text: string; reload?: { label: string; onClick: () => void }; written?: readonly string[] }) {
  const ref = useRef<HTMLDivElement>(null);
  // The dialog may be taller than the window: bring the refusal into view.
  useEffect(() => {
    ref.current?.scrollIntoView({ block: 'nearest' });
  }, [text]);
  return (
    <div ref={ref} role="alert" className={note.error} data-refusal={status}>
      <p className="font-semibold">
        {written?.length ? `Only part of it was written (${status}): ${written.join(', ')}.` : `The server refused it (${status}); nothing was written.`}
      </p>
      <p className="mt-1 break-words" data-refusal-message="">
        {text}
      </p>
      {reload ? (
        <button type="button" onClick={reload.onClick} className={`${btn.secondary} mt-2`}>
          {reload.label}
        </button>
      ) : null}
    </div>
  );
}

/** Toast title for written paths: "written: a, b" (a count when there are many). */
export function writtenTitle(paths: readonly string[]): string {
  return paths.length <= 3 ? `written: ${paths.join(', ')}` : `written: ${paths.length} files`;
}

/** The success toast of an act: up to three paths in its title, more as a list under "written: N files" (never both). */
export function writtenToast(paths: readonly string[]): { tone: 'ok'; title: string; paths?: readonly string[] } {
  return { tone: 'ok', title: writtenTitle(paths), ...(paths.length > 3 ? { paths } : {}) };
}

/** The end of an action dialog: a local error if signing failed, who signs, Cancel and the submit button. */
export function DialogFooter({
  localError,
  onClose,
  submitLabel,
  danger,
  canSend,
}: {
  localError: string | null;
  onClose: () => void;
  submitLabel: string;
  danger: boolean;
  canSend: boolean;
}) {
  return (
    <>
      {localError ? (
        <p role="alert" className={note.error}>
          Could not sign or send: {localError}
        </p>
      ) : null}
      <div className="flex flex-wrap items-center justify-between gap-3 border-t border-zinc-200 pt-3 dark:border-zinc-800">
        <SignerLine />
        <div className="ml-auto flex gap-2">
          <button type="button" className={btn.secondary} onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className={danger ? btn.danger : btn.primary} disabled={!canSend} aria-disabled={!canSend}>
            {submitLabel}
          </button>
        </div>
      </div>
    </>
  );
}
