/**
 * Waits until `cond()` holds, checking every 25 ms, for at most `boundMs` (ms, this process's
 * wall clock). Resolves true when it held, false when the bound passed first. For tests that
 * wait on a real indexer or server; the bound keeps each one finite.
 */
export async function until(cond: () => boolean, boundMs: number): Promise<boolean> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > boundMs) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}
