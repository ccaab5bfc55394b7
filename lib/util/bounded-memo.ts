/**
 * Answers remembered by key, at most `max` of them: one more and all are forgotten at once, and
 * remembered again as they are asked for. For answers cheap to make again but asked for over
 * and over (a key's parsed form, a path worked out from settings): a long-running serve's memory
 * stays flat whatever it meets.
 */
export class BoundedMemo<K, V> {
  private readonly answers = new Map<K, V>();

  constructor(private readonly max: number) {}

  /** The answer for `key`, made by `make` the first time (and again after the memo was emptied). */
  get(key: K, make: () => V): V {
    const known = this.answers.get(key);
    if (known !== undefined || this.answers.has(key)) return known as V;
    const v = make();
    if (this.answers.size >= this.max) this.answers.clear();
    this.answers.set(key, v);
    return v;
  }
}
