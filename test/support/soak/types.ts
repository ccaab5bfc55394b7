/** What the soak's fleet (fleet.ts) reports of each file it writes or removes. */

/** What a file the fleet wrote must make an order's card (or its runs) show once indexed. */
export type Expectation =
  /** The order exists: GET /api/orders/<id> answers 200. */
  | { readonly kind: 'exists' }
  /** `card.holder` is this agent. */
  | { readonly kind: 'holder'; readonly agent: string }
  /** `card.holder` is not this agent (its claim was released). */
  | { readonly kind: 'not_holder'; readonly agent: string }
  /** `card.latest_revision` is at least this. */
  | { readonly kind: 'revision'; readonly atLeast: number }
  /** The run's `last_arrival_ms` (GET /api/orders/<id> `runs`) is at least this file's ctime. */
  | { readonly kind: 'beat'; readonly agent: string; readonly run: string; readonly arrivalMs: number };

export type SoakWriteKind =
  | 'agent'
  | 'order'
  | 'claim'
  | 'heartbeat'
  | 'result'
  | 'review'
  | 'release'
  | 'giveup'
  | 'ack'
  | 'ledger'
  | 'conflict'
  | 'forged'
  | 'unsigned'
  /** A run's own heartbeat removed at its end (ferry's `remove_heartbeat`). */
  | 'unbeat'
  /** An archived order folder removed whole. */
  | 'prune';

/** One file the fleet wrote or removed. Times are ms on this machine's clock. */
export interface SoakWrite {
  readonly kind: SoakWriteKind;
  /** Channel-relative path (`tasks/<id>/<name>`, `ledger.<agent>.jsonl`, `tasks/<id>` for a prune). */
  readonly rel: string;
  /** The order whose folder changed, or null for a channel-level file. */
  readonly orderId: string | null;
  /** Date.now() just before the write began. */
  readonly startMs: number;
  /** The file's ctime right after the write (its arrival here), or null for a removal. */
  readonly ctimeMs: number | null;
  readonly expect?: Expectation;
}
