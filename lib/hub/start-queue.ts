/**
 * The hub's queue of channel starts: one at a time. A cold index starts its own worker threads
 * (one per other core) and holds a bulk load open; several at once would share two cores and
 * the memory between them, and every board would wait on all of them. Warm starts (an index
 * file already there) go ahead of cold ones, so the boards that can be up soon are.
 */
export class StartQueue {
  private readonly waiting: { readonly warm: boolean; readonly run: () => Promise<void>; readonly done: () => void }[] = [];
  private running = false;
  private idleWaiters: (() => void)[] = [];

  /** Queues `run`; resolves once it ran (a throw is `run`'s own to handle: the queue goes on either way). */
  push(warm: boolean, run: () => Promise<void>): Promise<void> {
    return new Promise<void>((done) => {
      const at = warm ? this.waiting.findIndex((w) => !w.warm) : -1;
      const item = { warm, run, done };
      if (at === -1) this.waiting.push(item);
      else this.waiting.splice(at, 0, item);
      void this.next();
    });
  }

  /** Resolves when nothing is queued or running. */
  idle(): Promise<void> {
    if (!this.running && this.waiting.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private async next(): Promise<void> {
    if (this.running) return;
    const item = this.waiting.shift();
    if (!item) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
      return;
    }
    this.running = true;
    try {
      await item.run();
    } catch {
      // `run` says its own failures; the next start is not held by one.
    } finally {
      this.running = false;
      item.done();
      void this.next();
    }
  }
}
