/**
 * The hub's queue of channel starts: one at a time, but for a cold start's last stretch. A cold
 * index starts its own worker threads (one per other core) and holds a bulk load open; several
 * at once would share two cores and the memory between them, and every board would wait on all
 * of them. Once a cold start's board is shown, what is left of it (checking the signatures behind
 * the board) leaves a core idle for moments at a time: the start hands off (`handOff`) and the
 * next one begins beside it, at most two starts under way. Warm starts (an index file already
 * there) go ahead of cold ones, so the boards that can be up soon are.
 */
export class StartQueue {
  private readonly waiting: { readonly warm: boolean; readonly run: (handOff: () => void) => Promise<void>; readonly done: () => void }[] = [];
  /** A start under way that has not handed off (at most one). */
  private leading = false;
  /** Starts under way that handed off and have not ended. */
  private trailing = 0;
  private idleWaiters: (() => void)[] = [];

  /**
   * Queues `run`; resolves once it ran (a throw is `run`'s own to handle: the queue goes on either
   * way). `run` may call its `handOff` once what is left of it can share the cores with the next
   * start; the next start then begins, unless another start is still finishing beside it.
   */
  push(warm: boolean, run: (handOff: () => void) => Promise<void>): Promise<void> {
    return new Promise<void>((done) => {
      const at = warm ? this.waiting.findIndex((w) => !w.warm) : -1;
      const item = { warm, run, done };
      if (at === -1) this.waiting.push(item);
      else this.waiting.splice(at, 0, item);
      this.next();
    });
  }

  /** Resolves when nothing is queued or under way. */
  idle(): Promise<void> {
    if (!this.leading && this.trailing === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private next(): void {
    if (this.leading || this.trailing > 1) return;
    const item = this.waiting.shift();
    if (!item) {
      if (this.trailing > 0) return;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
      return;
    }
    this.leading = true;
    let handedOff = false;
    const handOff = () => {
      if (handedOff) return;
      handedOff = true;
      this.leading = false;
      this.trailing++;
      this.next();
    };
    void (async () => {
      try {
        await item.run(handOff);
      } catch {
        // `run` says its own failures; the next start is not held by one.
      } finally {
        if (handedOff) this.trailing--;
        else this.leading = false;
        item.done();
        this.next();
      }
    })();
  }
}
