import 'server-only';
/**
 * Passing order folders in groups: on this thread in chunks, or on every core for a cold index
 * (worker-pool.ts), with the folders whose names fold to one order id (`tasks/T1` beside
 * `tasks/t1`; names compare case-insensitively) always decided together.
 */
import { byCanonicalDir, duplicateOrderDir } from '../../ledger/channel';
import { canonicalName } from '../../ledger/names';
import { passOrder, type OrderPassResult, type PassContext } from './order-pass';

/** Folders passed per chunk on this thread (each chunk is stored in one transaction). */
export const PASS_CHUNK = 500;

/**
 * Folders whose names fold to one order id decided as deriveOutcomes decides: in
 * byCanonicalDir order, the first holding a readable order keeps the id; each other is one
 * `invalid` problem at its folder, its files not read (no card, no writer arrivals). `results`
 * must hold every folder of such a group; they come back in that order (a keeper before the
 * folders it shadows).
 */
export function foldCaseVariants(results: readonly OrderPassResult[]): OrderPassResult[] {
  const byDir = new Map(results.map((r) => [r.dir, r]));
  const held = new Map<string, string>();
  return byCanonicalDir([...byDir.keys()]).map((d) => {
    const r = byDir.get(d) as OrderPassResult;
    if (!r.card) return r;
    const keeper = held.get(r.card.order_id);
    if (keeper === undefined) {
      held.set(r.card.order_id, r.dir);
      return r;
    }
    return {
      ...r,
      card: null,
      problems: [duplicateOrderDir(r.dir, `tasks/${keeper}/order.json`, r.card.order_id)],
      holds: [],
      beats: [],
      next_ms: null,
      files: r.files.map((f) => ({ ...f, writer: null })),
    };
  });
}

/** One folder's pass without its view (the index keeps no record content). */
export function passFolder(dir: string, ctx: PassContext): OrderPassResult {
  const { view: _view, ...r } = passOrder(dir, ctx);
  return r;
}

/**
 * `dirs` (with their case siblings) in byCanonicalDir order, cut into chunks of about
 * PASS_CHUNK folders, a case group never split.
 */
export function* siblingChunks(dirs: Iterable<string>): Generator<string[]> {
  const list = byCanonicalDir([...dirs]);
  for (let i = 0; i < list.length; ) {
    let end = Math.min(i + PASS_CHUNK, list.length);
    while (end < list.length && canonicalName(list[end] as string) === canonicalName(list[end - 1] as string)) end++;
    yield list.slice(i, end);
    i = end;
  }
}

/**
 * Takes the results of a cold index as they come, in any order, and hands them on with each
 * case group's results together and folded (foldCaseVariants). Only names shared by several
 * folders of `list` are kept: a map of every folder would be held for the whole index.
 */
export class CaseGroupCollector {
  private readonly groupSize = new Map<string, number>();
  private readonly waiting = new Map<string, OrderPassResult[]>();

  constructor(list: readonly string[], private readonly emit: (r: OrderPassResult) => void) {
    const seen = new Set<string>();
    for (const d of list) {
      const k = canonicalName(d);
      if (seen.has(k)) this.groupSize.set(k, (this.groupSize.get(k) ?? 1) + 1);
      else seen.add(k);
    }
  }

  take(r: OrderPassResult): void {
    const k = canonicalName(r.dir);
    const n = this.groupSize.get(k) ?? 1;
    if (n <= 1) return this.emit(r);
    const w = this.waiting.get(k) ?? [];
    w.push(r);
    this.waiting.set(k, w);
    if (w.length === n) {
      this.waiting.delete(k);
      for (const f of foldCaseVariants(w)) this.emit(f);
    }
  }

  /** The groups still waiting (a sibling vanished meanwhile), folded as they are. */
  flush(): void {
    for (const w of this.waiting.values()) for (const f of foldCaseVariants(w)) this.emit(f);
    this.waiting.clear();
  }
}
