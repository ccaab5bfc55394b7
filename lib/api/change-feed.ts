import 'server-only';
/**
 * What the event stream (events-get.ts) sends: the changes of every served channel, read from
 * each channel's own index (its change feed, `changesSince`), with one position per channel.
 * A serve of one channel is a feed of one.
 */
import { healthChanges } from '../index/health';
import { changesSince, latestSeq } from '../index/read/queries';
import type { DB } from '../index/db';
import type { ChannelView } from './channels';
import type { HubChangedEvent } from './types';

interface Followed {
  readonly db: DB;
  seq: number;
  readonly healthMoved: () => boolean;
}

/**
 * The change feeds of the channels `list()` gives (read again at each poll: a hub's registry
 * gains and loses channels). Each served channel is followed from its latest change at the
 * moment it is first read; one whose index cannot be opened yet (waiting its turn to start) is
 * tried again at the next poll. A channel that starts or stops being followed after the first
 * poll, or whose index health changes, is sent as a change naming no order (`orders: []`,
 * `all: false`: its board is fetched again).
 */
export class ChangeFeed {
  private readonly followed = new Map<string, Followed>();
  private first = true;

  constructor(private readonly list: () => readonly ChannelView[]) {}

  /** The position of each channel followed: its last change sent (the stream's cursor). */
  cursor(): Record<string, number> {
    return Object.fromEntries([...this.followed].map(([name, f]) => [name, f.seq]));
  }

  /** The changes since the last poll, one event per channel that changed, in the list's order. */
  poll(): HubChangedEvent[] {
    const out: HubChangedEvent[] = [];
    const nudge = (channel: string, seq: number) => out.push({ channel, seq, orders: [], all: false });
    const served = this.list().filter((c) => c.state === 'served');
    const names = new Set(served.map((c) => c.name));
    for (const [name, f] of [...this.followed]) {
      if (names.has(name)) continue;
      this.followed.delete(name);
      nudge(name, f.seq);
    }
    for (const c of served) {
      let f = this.followed.get(c.name);
      if (!f) {
        const opened = this.open(c);
        if (!opened) continue;
        f = opened;
        this.followed.set(c.name, f);
        if (!this.first) nudge(c.name, f.seq);
        continue;
      }
      const ev = changesSince(f.db, f.seq);
      if (ev) {
        f.seq = ev.seq;
        out.push({ channel: c.name, ...ev });
      } else if (f.healthMoved()) nudge(c.name, f.seq);
    }
    this.first = false;
    return out;
  }

  private open(c: ChannelView): Followed | null {
    let db: DB;
    try {
      db = c.db();
    } catch {
      return null;
    }
    return { db, seq: latestSeq(db), healthMoved: c.dbFile ? healthChanges(c.dbFile) : () => false };
  }
}
