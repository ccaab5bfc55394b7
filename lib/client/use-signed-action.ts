'use client';
/**
 * The one sending flow of the action dialogs (components/actions/*Dialog.tsx), on TanStack
 * Query's useMutation: sign and send (lib/client/actions.ts), then the server either wrote it,
 * or refused it (an answer with a status and a message: shown verbatim, nothing was written), or
 * the request could not be signed or sent at all (the browser's own error).
 *
 * `state`: `idle` (nothing sent yet, the last send was written, or `reset`), `sending`,
 * `refused` (`refusal` is the server's answer), `failed` (`failure` is the error's message).
 * A new send clears the last refusal and failure at once.
 */
import { useMutation, type MutationObserverResult, type MutationOptions } from '@tanstack/react-query';

/** Where a dialog's send is. */
export type SignedActionState = 'idle' | 'sending' | 'refused' | 'failed';

/** A server's answer as lib/client/actions.ts returns it: written (`ok: true`) or refused. */
type Answer = { readonly ok: boolean };
type Written<A extends Answer> = Extract<A, { readonly ok: true }>;
type Refused<A extends Answer> = Extract<A, { readonly ok: false }>;

/** What a dialog gives {@link useSignedAction}. */
export interface SignedActionOptions<V, A extends Answer> {
  /** Signs and sends `vars`; resolves to the server's answer, rejects when it could not sign or send. */
  readonly send: (vars: V) => Promise<A>;
  /** After the server wrote it (also when the dialog was closed meanwhile): invalidate, toast, close. */
  readonly onWritten: (answer: Written<A>, vars: V) => void;
  /** After a refusal, before it shows (e.g. refetch what a 409 says moved). */
  readonly onRefused?: (answer: Refused<A>, vars: V) => void;
}

/** What {@link useSignedAction} gives back. */
export interface SignedAction<V, A extends Answer> {
  readonly state: SignedActionState;
  /** The server's answer when `state` is `refused`, else null. */
  readonly refusal: Refused<A> | null;
  /** Why it could not be signed or sent when `state` is `failed`, else null. */
  readonly failure: string | null;
  /** What the last send was of (e.g. the id a refusal is about); undefined before the first and after `reset`. */
  readonly sent: V | undefined;
  /** Signs and sends `vars` (the caller checks it may: key, rules, not already sending). */
  readonly run: (vars: V) => void;
  /** Back to `idle`: forgets the last refusal or failure (a reloaded card is decided on afresh). */
  readonly reset: () => void;
}

const isRefused = <A extends Answer>(a: A): a is Refused<A> => !a.ok;
const isWritten = <A extends Answer>(a: A): a is Written<A> => a.ok;

/**
 * The mutation options of a signed action: `send` as the mutation, the server's answer routed to
 * `onWritten` or `onRefused`. The callbacks are the mutation's own, not mutate()'s: they run when
 * the answer comes even if the dialog was closed meanwhile (a write the operator started is
 * still told and invalidated).
 */
export function signedActionOptions<V, A extends Answer>(options: SignedActionOptions<V, A>): MutationOptions<A, unknown, V> {
  return {
    mutationFn: options.send,
    onSuccess: (answer, vars) => {
      if (isWritten(answer)) options.onWritten(answer, vars);
      else if (isRefused(answer)) options.onRefused?.(answer, vars);
    },
  };
}

/** What a dialog shows of a mutation's result (TanStack's, as useMutation and MutationObserver give it). */
export function signedActionView<V, A extends Answer>(
  m: Pick<MutationObserverResult<A, unknown, V>, 'isPending' | 'isError' | 'error' | 'data' | 'variables'>,
): Pick<SignedAction<V, A>, 'state' | 'refusal' | 'failure' | 'sent'> {
  const refusal = !m.isPending && m.data !== undefined && isRefused(m.data) ? m.data : null;
  const state: SignedActionState = m.isPending ? 'sending' : m.isError ? 'failed' : refusal ? 'refused' : 'idle';
  return {
    state,
    refusal,
    failure: m.isError ? (m.error instanceof Error ? m.error.message : String(m.error)) : null,
    sent: m.variables,
  };
}

/** One signed action's send, as a dialog shows it (see the header). */
export function useSignedAction<V, A extends Answer>(options: SignedActionOptions<V, A>): SignedAction<V, A> {
  const mutation = useMutation(signedActionOptions(options));
  return { ...signedActionView(mutation), run: mutation.mutate, reset: mutation.reset };
}
