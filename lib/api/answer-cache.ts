import 'server-only';
/**
 * A short-lived cache of computed answers, valid while the index has not changed: the key is
 * the request, the answer is dropped as soon as the index's change feed moves on (`seq`: its
 * position, or a version naming several indexes' positions) or after
 * `maxAgeMs`. Under load many clients ask for the same board; each distinct answer is computed
 * once per change instead of once per request. Answers are kept as UTF-8 bytes, ready to send;
 * the least recently used go first when they exceed `maxBytes`, and each answer is let go one to
 * two `maxAgeMs` after it was put (the sweep), so answers nobody asks for again hold no memory
 * (without it, one walk through the fleet history's pages keeps the cache's whole 8 MB budget in
 * the web process for good).
 */
export class AnswerCache {
  private readonly entries = new Map<string, { seq: number | string; at: number; body: Buffer; sweep: number }>();
  private bytes = 0;
  /** Sweeps done so far: an entry put after the n-th goes at the (n + 2)-th, at least `maxAgeMs` later. */
  private sweeps = 0;
  private sweepTimer: NodeJS.Timeout | null = null;
  constructor(
    private readonly maxAgeMs: number,
    private readonly maxBytes = 8 * 1024 * 1024,
  ) {}

  /** The bytes of the answers held now. */
  get heldBytes(): number {
    return this.bytes;
  }

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
    this.entries.set(key, { seq, at: nowMs, body: bytes, sweep: this.sweeps });
    this.bytes += bytes.length;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes || k === key) break;
      this.entries.delete(k);
      this.bytes -= e.body.length;
    }
    this.sweepTimer ??= this.scheduleSweep();
    return bytes;
  }

  /**
   * The sweep: every `maxAgeMs` while answers are held, those put before the previous sweep go,
   * each having been held at least `maxAgeMs`. It runs on the process's timers (a monotonic
   * clock), not on the index's clock that `peek` judges age by: the two agree but for a step the
   * indexer saw, and an answer let go early is only computed again. The timer does not keep the
   * process alive.
   */
  private scheduleSweep(): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.sweepTimer = null;
      for (const [k, e] of this.entries) {
        if (e.sweep >= this.sweeps) continue;
        this.entries.delete(k);
        this.bytes -= e.body.length;
      }
      this.sweeps++;
      if (this.entries.size > 0) this.sweepTimer = this.scheduleSweep();
    }, this.maxAgeMs);
    t.unref();
    return t;
  }
}
