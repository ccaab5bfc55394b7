import 'server-only';
/**
 * The vanish grace: a file that just vanished is believed a moment longer. Syncthing replaces a
 * received file in two steps, unlinking the old one, then renaming its temp file into place; a
 * look or a pass that lands between the two must not store the file as gone (a heartbeating
 * claim would show without its heartbeat, or its file as unreadable). What is held back is looked
 * at again when the grace ends; a file still gone then is gone.
 *
 * Clock: performance.now() (monotonic), for every deadline here: the grace is about the
 * filesystem's timing, so a step of the wall clock does not move it.
 *
 * Keys are folders under tasks/, and '' for the channel level (the roster and the ledgers).
 */
export class VanishGrace {
  /** Each folder's (and the channel level's) end of its grace: a look at it is due then (ended). */
  private readonly until = new Map<string, number>();
  /** Folders whose pass found a file vanished, and the end of that grace (overPass). */
  private readonly passUntil = new Map<string, number>();
  /** Folders whose grace ended at this look: their pass is stored whatever it finds. */
  private over = new Set<string>();

  /** A new look begins: the graces that ended at the last one are forgotten. */
  begin(): void {
    this.over = new Set();
  }

  /**
   * Over a look's result (`graceMs`; 0: none). Rule: a folder in `lost` (a file it held at its
   * last pass gone) is taken out of `dirty` until its grace ends, and its remembered listing,
   * untouched by looks, makes the next look see it again; likewise the channel level when
   * `channelLost`. Returns whether the channel level is still to be read (`channelDirty` less a
   * held one) and whether it was held (the caller keeps its previous listing then).
   */
  overLook(lost: ReadonlySet<string>, dirty: Set<string>, channelLost: boolean, channelDirty: boolean, graceMs: number): { channelDirty: boolean; channelHeld: boolean } {
    const now = performance.now();
    if (graceMs > 0) {
      for (const d of lost) {
        if (!dirty.has(d)) continue;
        const until = this.until.get(d);
        if (until !== undefined && until <= now) {
          this.until.delete(d);
          this.over.add(d);
          continue;
        }
        if (until === undefined) this.until.set(d, now + graceMs);
        dirty.delete(d);
      }
    }
    for (const d of dirty) this.until.delete(d);
    if (channelLost && channelDirty && graceMs > 0) {
      const until = this.until.get('');
      if (until !== undefined && until <= now) {
        this.until.delete('');
        this.over.add('');
      } else {
        if (until === undefined) this.until.set('', now + graceMs);
        return { channelDirty: false, channelHeld: true };
      }
    } else if (channelDirty) this.until.delete('');
    return { channelDirty, channelHeld: false };
  }

  /**
   * Over a pass (`graceMs`; 0: none). Rule: a pass of `dir` ('' : a read of the channel level)
   * that found a file vanished (a file stored at its last pass not there now, or one it listed
   * gone by its lstat or its read: the replace caught between its two steps after the look
   * listed it) is held back, what is stored believed, until the grace ends; a look at it is due
   * then. A pass after the grace ended, the look's or its own, is stored whatever it found; a
   * pass that found nothing vanished ends the grace. Returns whether to hold this pass back.
   */
  overPass(dir: string, vanished: boolean, graceMs: number): boolean {
    if (!vanished || graceMs <= 0 || this.over.has(dir)) {
      this.passUntil.delete(dir);
      return false;
    }
    const now = performance.now();
    const until = this.passUntil.get(dir);
    if (until === undefined) {
      this.passUntil.set(dir, now + graceMs);
      if (!this.until.has(dir)) this.until.set(dir, now + graceMs);
      return true;
    }
    if (until > now) {
      // A look since may have ended the look's wait: the look at the grace's end is still due.
      if (!this.until.has(dir)) this.until.set(dir, until);
      return true;
    }
    this.passUntil.delete(dir);
    return false;
  }

  /** The earliest end of a grace, or null when nothing is held. */
  nextEnd(): number | null {
    return this.until.size === 0 ? null : Math.min(...this.until.values());
  }

  /** The paths to look at again because their grace ended (`agents` stands for the channel level). */
  ended(): string[] {
    const now = performance.now();
    const out: string[] = [];
    for (const [d, until] of this.until) if (until <= now) out.push(d === '' ? 'agents' : `tasks/${d}`);
    return out;
  }
}
