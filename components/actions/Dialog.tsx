'use client';
import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * A modal dialog on the native `<dialog>` element, shown with `showModal()` while mounted: the
 * browser traps focus, makes the page behind inert, closes on Escape and gives focus back to
 * what opened it. A click on the backdrop does not close it (a half-typed reason is not thrown
 * away). `onClose` is called whenever it closes (Escape, ×, or a button calling it).
 */
export function Dialog({
  onClose,
  title,
  description,
  children,
  wide = false,
  testId,
}: {
  onClose: () => void;
  title: ReactNode;
  /** One line under the title, read out with it. */
  description?: ReactNode;
  children: ReactNode;
  wide?: boolean;
  testId?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descId = useId();
  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  }, [onClose]);

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    // Escape (cancel), the × button and d.close() all end in `close`: tell the owner.
    const onNativeClose = () => onCloseRef.current();
    d.addEventListener('close', onNativeClose);
    if (!d.open) d.showModal();
    return () => {
      d.removeEventListener('close', onNativeClose);
      if (d.open) d.close();
    };
  }, []);

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={description ? descId : undefined}
      data-testid={testId}
      className={`m-auto max-h-[calc(100dvh-2rem)] w-[calc(100vw-2rem)] ${wide ? 'max-w-3xl' : 'max-w-xl'} overflow-y-auto rounded-lg border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-zinc-950/50 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100`}
    >
      {/* wrap-break-word: a long token (a giveup:<digest> in a sentence) wraps rather than widening a phone's dialog. */}
      <div className="flex flex-col gap-4 p-5 wrap-break-word">
        <header className="flex items-start justify-between gap-4">
          <div className="min-w-0">
            <h2 id={titleId} className="text-lg leading-snug font-semibold tracking-tight break-words">
              {title}
            </h2>
            {description ? (
              <p id={descId} className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
                {description}
              </p>
            ) : null}
          </div>
          <button
            type="button"
            onClick={() => ref.current?.close()}
            className="-mt-1 -mr-1 inline-flex shrink-0 items-center justify-center rounded-md px-2 py-1 text-xl leading-none pointer-coarse:-mt-2.5 pointer-coarse:-mr-2.5 pointer-coarse:size-11 text-zinc-500 dark:text-zinc-400 hover:bg-zinc-100 hover:text-zinc-900 dark:hover:bg-zinc-800 dark:hover:text-white"
            aria-label="Close"
          >
            ×
          </button>
        </header>
        {children}
      </div>
    </dialog>
  );
}
