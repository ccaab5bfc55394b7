'use client'; // Error boundaries must be Client Components.

import { useEffect } from 'react';

export default function ErrorPage({ error, retry }: { error: unknown; retry: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);

  // Errors from Server Components reach the browser as a generic message plus a digest
  // that matches the server's log line; never more.
  const digest =
    error instanceof Error && 'digest' in error && typeof error.digest === 'string' ? error.digest : undefined;

  return (
    <div className="mx-auto max-w-3xl px-6 py-16">
      <h1 className="text-2xl font-semibold tracking-tight">Something went wrong</h1>
      <p className="mt-3 text-zinc-600 dark:text-zinc-400">
        This page could not be rendered. The channel folder is untouched: nothing is written unless you take an
        action.
      </p>
      {digest ? (
        <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">
          Reference for the server log: <code>{digest}</code>
        </p>
      ) : null}
      <button
        type="button"
        onClick={() => retry()}
        className="mt-6 rounded-md bg-zinc-900 px-4 py-2 text-sm font-medium text-white hover:bg-zinc-700 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300"
      >
        Try again
      </button>
    </div>
  );
}
