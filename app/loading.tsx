export default function Loading() {
  return (
    <div className="mx-auto max-w-3xl px-6 py-16" aria-busy="true">
      <p role="status" className="text-sm text-zinc-500 dark:text-zinc-400">
        Loading…
      </p>
    </div>
  );
}
