import 'server-only';
/**
 * A short-lived cache of computed answers, valid while the index has not changed: the key is
 * the request, the answer is dropped as soon as the index's change feed moves on (`seq`: its
 * position, or a version naming several indexes' positions) or after
 * `maxAgeMs`. Under load many clients ask for the same board; each distinct answer is computed
 * once per change instead of once per request. Answers are kept as UTF-8 bytes, ready to send;
 * the least recently used go first when they exceed `maxBytes`.
 */
export class AnswerCache {
  private readonly entries = new Map<string, { seq: number | string; at: number; body: Buffer }>();
  private bytes = 0;
  constructor(
    private readonly maxAgeMs: number,
    private readonly maxBytes = 8 * 1024 * 1024,
  ) {}

  /** The body cached for `key` at change `seq` and at most `maxAgeMs` old at `nowMs`, or undefined (an old one is dropped). */
  peek(key: string, seq: number | string, nowMs: number): Buffer | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key);
    if (hit.seq === seq && nowMs - hit.at <= this.maxAgeMs) {
      this.entries.set(key, hit); // most recently used last
      return hit.body;
    }
    this.bytes -= hit.body.length;
    return undefined;
  }

  /** Remembers `body` (JSON text) for `key`, computed at change `seq` at `nowMs`; returns it as UTF-8 bytes. */
  put(key: string, seq: number | string, nowMs: number, body: string): Buffer {
    this.peek(key, Number.NaN, nowMs); // drops an entry of this key, if any
    const bytes = Buffer.from(body, 'utf8');
    this.entries.set(key, { seq, at: nowMs, body: bytes });
    this.bytes += bytes.length;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes || k === key) break;
      this.entries.delete(k);
      this.bytes -= e.body.length;
    }
    return bytes;
  }
}
