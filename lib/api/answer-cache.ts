import 'server-only';
/**
 * A short-lived cache of computed answers, valid while the index has not changed: the key is
 * the request, the answer is dropped as soon as the index's change feed moves on (`seq`) or after
 * `maxAgeMs`. Under load many clients ask for the same board; each distinct answer is computed
 * once per change instead of once per request. Answers are kept as UTF-8 bytes, ready to send;
 * the least recently used go first when they exceed `maxBytes`.
 */
export class AnswerCache {
  private readonly entries = new Map<string, { seq: number; at: number; body: Buffer }>();
  private bytes = 0;
  constructor(
    private readonly maxAgeMs: number,
    private readonly maxBytes = 16 * 1024 * 1024,
  ) {}

  /** The cached body for `key` at change `seq` (UTF-8 JSON), computing (and remembering) it when absent or old. */
  get(key: string, seq: number, nowMs: number, compute: () => string): Buffer {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      if (hit.seq === seq && nowMs - hit.at <= this.maxAgeMs) {
        this.entries.set(key, hit); // most recently used last
        return hit.body;
      }
      this.bytes -= hit.body.length;
    }
    const body = Buffer.from(compute(), 'utf8');
    this.entries.set(key, { seq, at: nowMs, body });
    this.bytes += body.length;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes || k === key) break;
      this.entries.delete(k);
      this.bytes -= e.body.length;
    }
    return body;
  }
}
