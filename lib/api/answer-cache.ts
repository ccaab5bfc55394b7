import 'server-only';
/**
 * A short-lived cache of computed answers, valid while the index has not changed: the key is
 * the request, the answer is dropped as soon as the index's change feed moves on (`seq`) or after
 * `maxAgeMs`. Under load many clients ask for the same board; each distinct answer is computed
 * once per change instead of once per request.
 */
export class AnswerCache {
  private readonly entries = new Map<string, { seq: number; at: number; body: string }>();
  constructor(
    private readonly maxAgeMs: number,
    private readonly maxEntries = 200,
  ) {}

  /** The cached body for `key` at change `seq`, computing (and remembering) it when absent or old. */
  get(key: string, seq: number, nowMs: number, compute: () => string): string {
    const hit = this.entries.get(key);
    if (hit && hit.seq === seq && nowMs - hit.at <= this.maxAgeMs) return hit.body;
    const body = compute();
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { seq, at: nowMs, body });
    return body;
  }
}
