/**
 * The signed-action flow the dialogs share (use-signed-action.ts), on TanStack's own
 * MutationObserver (what useMutation wraps) with the hook's options and view: idle, sending,
 * then refused (the server's answer kept, onRefused told), written (back to idle, onWritten
 * told) or failed (the error's message); a new send clears the last refusal at once; reset
 * forgets it. The dialogs themselves are covered by e2e/actions, supersede and phone specs.
 */
import { MutationObserver, QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { signedActionOptions, signedActionView, type SignedActionOptions } from './use-signed-action';

type Answer = { readonly ok: true; readonly written: readonly string[] } | { readonly ok: false; readonly status: number; readonly message: string };
type Vars = { readonly id: string };

/** A promise the test settles by hand, so the pending state can be looked at. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function setup() {
  // One answer per send, settled by the test (the mutation calls send a tick after mutate).
  const answers = Array.from({ length: 4 }, () => deferred<Answer>());
  let sends = 0;
  const onWritten = vi.fn();
  const onRefused = vi.fn();
  const options: SignedActionOptions<Vars, Answer> = {
    send: () => {
      const d = answers[sends++];
      if (!d) throw new Error('more sends than the test expects');
      return d.promise;
    },
    onWritten,
    onRefused,
  };
  const observer = new MutationObserver(new QueryClient(), signedActionOptions(options));
  const view = () => signedActionView(observer.getCurrentResult());
  const run = (vars: Vars) => observer.mutate(vars).catch(() => undefined);
  return { answers, onWritten, onRefused, observer, view, run };
}

const REFUSED = { ok: false, status: 409, message: 'the board changed' } as const;

describe('useSignedAction over a mutation', () => {
  it('idle, then sending with what was sent, then refused with the answer; onRefused told, onWritten not', async () => {
    const t = setup();
    expect(t.view()).toEqual({ state: 'idle', refusal: null, failure: null, sent: undefined });
    const done = t.run({ id: 't1' });
    expect(t.view()).toEqual({ state: 'sending', refusal: null, failure: null, sent: { id: 't1' } });
    t.answers[0]?.resolve(REFUSED);
    await done;
    expect(t.view()).toEqual({ state: 'refused', refusal: REFUSED, failure: null, sent: { id: 't1' } });
    expect(t.onRefused).toHaveBeenCalledTimes(1);
    expect(t.onRefused.mock.calls[0]?.slice(0, 2)).toEqual([REFUSED, { id: 't1' }]);
    expect(t.onWritten).not.toHaveBeenCalled();
  });

  it('written: back to idle, onWritten told with the answer and what was sent', async () => {
    const t = setup();
    const done = t.run({ id: 't2' });
    const answer = { ok: true, written: ['tasks/t2/release.ops.fang.json', 'ledger.ops.jsonl'] } as const;
    t.answers[0]?.resolve(answer);
    await done;
    expect(t.view().state).toBe('idle');
    expect(t.view().refusal).toBeNull();
    expect(t.onWritten.mock.calls.map((c) => c.slice(0, 2))).toEqual([[answer, { id: 't2' }]]);
    expect(t.onRefused).not.toHaveBeenCalled();
  });

  it("failed: the error's message (or the thrown value as text); a new send clears it and a refusal at once", async () => {
    const t = setup();
    let done = t.run({ id: 't3' });
    t.answers[0]?.reject(new Error('Failed to fetch'));
    await done;
    expect(t.view()).toEqual({ state: 'failed', refusal: null, failure: 'Failed to fetch', sent: { id: 't3' } });
    done = t.run({ id: 't3' });
    expect(t.view()).toEqual({ state: 'sending', refusal: null, failure: null, sent: { id: 't3' } });
    t.answers[1]?.reject('no key');
    await done;
    expect(t.view().failure).toBe('no key');
    done = t.run({ id: 't4' });
    t.answers[2]?.resolve(REFUSED);
    await done;
    expect(t.view().state).toBe('refused');
    done = t.run({ id: 't5' });
    expect(t.view()).toEqual({ state: 'sending', refusal: null, failure: null, sent: { id: 't5' } });
    t.answers[3]?.resolve({ ok: true, written: [] });
    await done;
    expect(t.view().state).toBe('idle');
  });

  it('reset forgets a refusal and what was sent', async () => {
    const t = setup();
    const done = t.run({ id: 't6' });
    t.answers[0]?.resolve(REFUSED);
    await done;
    t.observer.reset();
    expect(t.view()).toEqual({ state: 'idle', refusal: null, failure: null, sent: undefined });
  });
});
