/**
 * The per-thread part of bench/board-first.ts: a chunk of order folders passed as a cold index's
 * first pass passes them (passOrder, every signature taken unchecked), and what each way of
 * showing the board first would do with the results (see board-first.ts `Way`).
 */
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { passOrder, type OrderPassResult, type PassContext } from '../lib/index/writer/order-pass';
import { SpillWriter } from '../lib/index/workers/spill';
import type { Card } from '../lib/ledger/derive';

/**
 * `derive`: the results dropped but for the card (reading and deriving alone); `sigs`: as
 * `derive`, the unchecked signatures kept in segment files as pass 1 keeps them; `spill`: the
 * unchecked signatures kept in segment files as today and each result (without its view)
 * written to disk with v8's serializer, the card kept; `send`: every result (without its view)
 * handed over whole, as today's pass 1 hands it to the thread that stores it.
 */
export type Way = 'derive' | 'sigs' | 'spill' | 'send';

/** What a chunk's pass hands to the board: the cards, or the whole results (`send`), and the files read. */
export interface ChunkOut {
  readonly cards: readonly { readonly dir: string; readonly card: Card | null }[];
  readonly results: readonly Omit<OrderPassResult, 'view'>[];
  readonly files: number;
}

/** One thread's writers: its unchecked signatures (spill.ts) and its results (length-prefixed v8 records). */
export class ThreadSpill {
  private readonly sigs: SpillWriter;
  private readonly fd: number;
  private parts: Buffer[] = [];
  bytes = 0;

  constructor(dir: string, name: string) {
    this.sigs = new SpillWriter(dir, name);
    this.fd = fs.openSync(path.join(dir, `${name}.results`), 'a');
  }

  /** The pass context's `defer`: the signature kept to check later. */
  readonly defer = (d: string, k: string, m: string, s: string): boolean => this.sigs.add(d, k, m, s);

  /** Keeps a chunk's results as one record (one serializer call a chunk, as postMessage makes) until the next flush. */
  add(rs: readonly Omit<OrderPassResult, 'view'>[]): void {
    const b = v8.serialize(rs);
    const len = Buffer.allocUnsafe(4);
    len.writeUInt32LE(b.length);
    this.parts.push(len, b);
    this.bytes += 4 + b.length;
  }

  /** Writes what was kept (the end of each chunk). */
  flush(): void {
    this.sigs.flush();
    if (this.parts.length === 0) return;
    fs.writeSync(this.fd, Buffer.concat(this.parts));
    this.parts = [];
  }

  close(): void {
    this.flush();
    fs.closeSync(this.fd);
  }
}

/** Passes `dirs` the `way` says; `spill` is needed by `spill`. */
export function passChunk(dirs: readonly string[], ctx: PassContext, way: Way, spill: ThreadSpill | null): ChunkOut {
  const c: PassContext = (way === 'spill' || way === 'sigs') && spill ? { ...ctx, defer: spill.defer } : { ...ctx, defer: () => true };
  const cards: { dir: string; card: Card | null }[] = [];
  const results: Omit<OrderPassResult, 'view'>[] = [];
  let files = 0;
  for (const d of dirs) {
    const { view: _view, ...r } = passOrder(d, c);
    files += r.files.length;
    switch (way) {
      case 'derive':
      case 'sigs':
        cards.push({ dir: d, card: r.card });
        break;
      case 'spill':
        results.push(r);
        cards.push({ dir: d, card: r.card });
        break;
      case 'send':
        results.push(r);
        break;
    }
  }
  if (way === 'sigs') spill?.flush();
  if (way === 'spill') {
    spill?.add(results);
    spill?.flush();
    return { cards, results: [], files };
  }
  return { cards, results, files };
}
