/**
 * Every conformance case of conformance/vectors through the pure derivation, with arrivals
 * from `age_s` (conformance/vectors/README.md). The same cases run through the real CLI on real
 * files in `npm test` (scripts/check-vectors.mjs).
 */
import { describe, expect, it } from 'vitest';
import { deriveChannel } from './channel';
import { naclVerify } from './nacl-verify';
import { loadExpect, vectorEntries, vectorNames } from '../../test/support/vectors';

const NOW = Date.parse('2026-11-30T12:00:00Z');

describe('conformance vectors (pure derivation)', () => {
  for (const name of vectorNames()) {
    it(name, () => {
      const want = loadExpect(name);
      const got = deriveChannel(vectorEntries(name, NOW), {
        nowMs: NOW,
        staleAfterMs: want.stale_after_s * 1000,
        verify: naclVerify,
      });
      const cards = new Map(got.orders.map((c) => [c.order_id, c]));
      for (const [id, w] of Object.entries(want.orders ?? {})) {
        const c = cards.get(id);
        expect(c, `order ${id}`).toBeDefined();
        if (!c) continue;
        expect({ state: c.state, lane: c.lane, holder: c.holder, flags: [...c.flags].sort() }, id).toEqual({
          state: w.state,
          lane: w.lane,
          holder: w.holder,
          flags: [...w.flags].sort(),
        });
        if (w.reason !== undefined) expect(c.reason, `${id}.reason`).toBe(w.reason);
        if (w.since_age_s !== undefined) expect(c.since_ms, `${id}.since`).toBe(NOW - w.since_age_s * 1000);
      }
      for (const p of want.problems ?? []) {
        const hit = got.problems.find((q) => q.path === p.path && q.problem === p.problem && (p.line === undefined || q.line === p.line));
        expect(hit, `problem ${p.problem} at ${p.path}`).toBeDefined();
      }
      for (const [file, w] of Object.entries(want.ledger ?? {})) {
        const r = got.ledger[file];
        expect(r && { entries: r.entries, intact: r.intact }, `ledger ${file}`).toEqual(w);
      }
      // Every order of the folder that the case names is derived; nothing more is invented.
      expect(got.orders.map((c) => c.order_id).sort()).toEqual(Object.keys(want.orders ?? {}).sort());
    });
  }
});
