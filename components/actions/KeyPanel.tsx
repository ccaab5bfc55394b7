'use client';
/**
 * The operator key. Import it by
 * pasting the hex seed, by choosing a `<name>.key` file (ferryman's convention: the name comes
 * from the file name, else it is asked), or, on the demo, with the demo operator key. The seed
 * stays in this browser: sessionStorage by default, localStorage when "remember on this
 * device" is ticked; "Forget key" clears both. Only signatures are ever sent.
 */
import { useId, useRef, useState } from 'react';
import { nameFromKeyFileName, parseOperatorName, parseSeed, type KeyGate } from '@/lib/client/keys';
import { useKeyGate, useOperatorInfo, useOperatorKey } from '@/lib/client/operator';
import { useActions } from './context';
import { Dialog } from './Dialog';
import { btn, field, note } from './ui';

/** The nav's button: "Sign in as operator", or who you are and whether you may act. */
export function KeyButton() {
  const { loaded } = useOperatorKey();
  const gate = useKeyGate();
  const { openKeyPanel } = useActions();
  const checking = gate.code === 'checking';
  const label = !gate.key ? 'Sign in as operator' : gate.ok ? `${gate.key.name} ✓` : checking ? `${gate.key.name} …` : `${gate.key.name} ⚠`;
  return (
    <button
      type="button"
      onClick={openKeyPanel}
      data-key-status={gate.code}
      title={gate.key ? gate.message : 'Import an operator key to act on the board'}
      aria-label={gate.key ? `Operator key: ${gate.message}` : 'Sign in as operator'}
      className={`inline-flex shrink-0 items-center rounded-md border px-2 py-1 text-xs font-medium whitespace-nowrap pointer-coarse:min-h-11 pointer-coarse:px-3 pointer-coarse:text-sm ${
        !gate.key || checking
          ? 'border-zinc-300 text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-200 dark:hover:bg-zinc-800'
          : gate.ok
            ? 'border-emerald-300 bg-emerald-50 text-emerald-900 hover:bg-emerald-100 dark:border-emerald-800 dark:bg-emerald-950/50 dark:text-emerald-200'
            : 'border-amber-300 bg-amber-50 text-amber-950 hover:bg-amber-100 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-200'
      } ${loaded ? '' : 'invisible'}`}
    >
      {label}
    </button>
  );
}

export function KeyPanel({ onClose }: { onClose: () => void }) {
  const { key, storage, setKey, forget } = useOperatorKey();
  const gate = useKeyGate();
  const nameId = useId();
  const seedId = useId();
  const fileId = useId();
  const fileRef = useRef<HTMLInputElement>(null);
  const [name, setName] = useState('');
  const [seed, setSeed] = useState('');
  const [remember, setRemember] = useState(storage === 'local');
  const [error, setError] = useState<string | null>(null);
  const [fileNote, setFileNote] = useState<string | null>(null);
  // On the demo (`npm start` with no channel) the server offers the demo operator ops's key.
  const ops = useOperatorInfo('ops');
  const demo = ops.data?.demo_key_available === true;

  const importKey = (n: string, s: string): boolean => {
    const pn = parseOperatorName(n);
    if (!pn.ok) {
      setError(pn.reason);
      return false;
    }
    const ps = parseSeed(s);
    if (!ps.ok) {
      setError(ps.reason);
      return false;
    }
    setKey({ name: pn.value, seed: ps.value }, remember);
    setSeed('');
    setError(null);
    setFileNote(null);
    if (fileRef.current) fileRef.current.value = '';
    return true;
  };

  const onFile = async (file: File | undefined) => {
    setError(null);
    setFileNote(null);
    if (!file) return;
    if (file.size > 4096) {
      setError(`${file.name} is not a key file: a key file holds a 64-digit hex seed`);
      return;
    }
    const text = await file.text();
    const ps = parseSeed(text);
    if (!ps.ok) {
      setError(`${file.name}: ${ps.reason}`);
      return;
    }
    const fromName = nameFromKeyFileName(file.name);
    if (fromName) {
      setName(fromName);
      importKey(fromName, ps.value);
      return;
    }
    // Keep the seed in the (hidden) field and ask for the name.
    setSeed(ps.value);
    setFileNote(`${file.name} is not named <name>.key, so it does not say whose key it is: type the operator name and press Import.`);
  };

  const takeDemoKey = async () => {
    setError(null);
    try {
      const res = await fetch('/api/demo-key', { headers: { accept: 'application/json' }, cache: 'no-store' });
      const body = (await res.json().catch(() => null)) as { name?: unknown; seed?: unknown; message?: unknown } | null;
      if (!res.ok || !body || typeof body.name !== 'string' || typeof body.seed !== 'string') {
        setError(typeof body?.message === 'string' ? body.message : `no demo key (${res.status})`);
        return;
      }
      setName(body.name);
      importKey(body.name, body.seed);
    } catch (e) {
      setError(`could not fetch the demo key: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  return (
    <Dialog onClose={onClose} title="Operator key" description="Actions are signed with your key in this browser; only the signatures are sent." testId="key-panel">
      <KeyStatus gate={gate} />
      {key ? (
        <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
          <p className="text-zinc-700 dark:text-zinc-300">
            Public key{' '}
            <code className="font-mono text-xs" title={gate.publicKey ?? ''}>
              {gate.publicKey ? `${gate.publicKey.slice(0, 8)}…${gate.publicKey.slice(-8)}` : '?'}
            </code>{' '}
            · {storage === 'local' ? 'remembered on this device (localStorage)' : 'kept for this tab only (sessionStorage)'}
          </p>
          <button
            type="button"
            className={btn.secondary}
            onClick={() => {
              forget();
              setName('');
              setSeed('');
              setError(null);
            }}
          >
            Forget key
          </button>
        </div>
      ) : null}

      {/* The form waits for the server's answer about ops: the demo's offer appearing above the
          fields would move them, and the Import button, under a pointer already on its way. */}
      {ops.isPending ? (
        <p className="border-t border-zinc-200 pt-4 text-sm text-zinc-600 dark:border-zinc-800 dark:text-zinc-400" data-key-form="waiting">
          Asking the server about this channel&apos;s operators…
        </p>
      ) : (
        <form
          className="flex flex-col gap-3 border-t border-zinc-200 pt-4 dark:border-zinc-800"
          onSubmit={(e) => {
            e.preventDefault();
            importKey(name, seed);
          }}
          aria-label="import an operator key"
        >
          <h3 className="text-sm font-semibold">{key ? 'Use another key' : 'Import your operator key'}</h3>
          {demo ? (
            <div className={note.info}>
              <p>This is the demo channel: its operator is ops.</p>
              <button type="button" className={`${btn.primary} mt-2`} onClick={() => void takeDemoKey()}>
                Use the demo operator key
              </button>
            </div>
          ) : null}
          <div className="grid gap-3 sm:grid-cols-[10rem_1fr]">
            <div>
              <label htmlFor={nameId} className="text-sm font-medium">
                Operator name
              </label>
              <input
                id={nameId}
                value={name}
                onChange={(e) => setName(e.target.value)}
                autoComplete="off"
                spellCheck={false}
                placeholder="ops"
                className={`${field} mt-1 font-mono`}
              />
            </div>
            <div>
              <label htmlFor={seedId} className="text-sm font-medium">
                Seed (64 hex digits)
              </label>
              <input
                id={seedId}
                type="password"
                value={seed}
                onChange={(e) => setSeed(e.target.value)}
                autoComplete="off"
                spellCheck={false}
                placeholder="paste the contents of the key file"
                className={`${field} mt-1 font-mono`}
              />
            </div>
          </div>
          <div>
            <label htmlFor={fileId} className="text-sm font-medium">
              …or choose a key file
            </label>
            <input
              ref={fileRef}
              id={fileId}
              type="file"
              accept=".key,text/plain"
              onChange={(e) => void onFile(e.target.files?.[0])}
              className="mt-1 block w-full text-sm text-zinc-700 file:mr-3 file:rounded-md file:border file:border-zinc-300 file:bg-white file:px-2.5 file:py-1 file:text-sm pointer-coarse:file:py-2.5 file:font-medium hover:file:bg-zinc-100 dark:text-zinc-300 dark:file:border-zinc-700 dark:file:bg-zinc-900 dark:file:text-zinc-100"
            />
            <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">ferryman names key files &lt;name&gt;.key: ops.key signs as ops.</p>
          </div>
          {fileNote ? <p className={note.warn}>{fileNote}</p> : null}
          <label className="flex items-start gap-2 text-sm">
            <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.target.checked)} className="mt-0.5 size-4 shrink-0 pointer-coarse:size-6" />
            <span>
              Remember on this device
              <span className="block text-xs text-zinc-500 dark:text-zinc-400">
                Unticked, the key is kept for this tab only and gone when it closes. Ticked, it stays in this browser&apos;s localStorage until you forget it.
              </span>
            </span>
          </label>
          {error ? (
            <p role="alert" className={note.error} data-key-error="">
              {error}
            </p>
          ) : null}
          <div className="flex justify-end gap-2">
            <button type="button" className={btn.secondary} onClick={onClose}>
              Close
            </button>
            <button type="submit" className={btn.primary}>
              Import
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

function KeyStatus({ gate }: { gate: KeyGate }) {
  const cls = gate.ok ? note.ok : gate.code === 'no_key' ? note.info : gate.code === 'checking' ? note.info : note.warn;
  return (
    <p role="status" className={cls} data-key-status={gate.code}>
      {gate.code === 'no_key'
        ? 'No operator key in this browser: you can read the board, not act on it.'
        : gate.ok
          ? gate.message
          : `Actions are not offered: ${gate.message}.`}
    </p>
  );
}
