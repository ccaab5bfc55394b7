/**
 * claimboard against the real ferry: on every channel ferry 0.4.1 wrote
 * (conformance/ferry), each order's state and holder equal ferry's own verdict up to the two
 * documented differences (Stale by arrival here; blocked is ferry's Open), and the
 * Needs-attention lane holds exactly the orders a person marked as needing a human.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { argValue, FERRY_TO_CLAIMBOARD, ferryCases } from '../../test/support/ferry-cases';
import { channelStateOf } from './channel-state';
import { readFleetRoster } from './ferryman-state';

// Each channel is read from a fresh copy, as check-ferry.mjs does: its files arrive now, so a
// reading does not depend on how long ago the repository was checked out (arrival is a file's ctime).
const copies = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-ferry-cases-'));
afterAll(() => fs.rmSync(copies, { recursive: true, force: true }), 60_000);
const cases = ferryCases().map((c) => {
  const channel = path.join(copies, c.name);
  fs.cpSync(c.channel, channel, { recursive: true });
  return { ...c, channel };
});

describe('channels the real ferry wrote', () => {
  it('are in the repository (alpha, beta, gamma, and the scenarios a helper wrote with the real ferry, rt-*)', () => {
    const names = cases.map((c) => c.name);
    for (const n of ['alpha', 'beta', 'gamma']) expect(names).toContain(n);
  });
  for (const c of cases) {
    describe(c.name, () => {
      const stateDir = argValue(c.args, '--ferryman-state');
      const staleAfter = argValue(c.args, '--stale-after');
      const state = channelStateOf(c.channel, {
        ...(stateDir ? { fleetAgents: readFleetRoster(stateDir) } : {}),
        ...(staleAfter ? { staleAfterMs: Number(staleAfter) * 1000 } : {}),
      });
      const cards = new Map(state.orders.map((o) => [o.order_id, o]));
      it("every order's state and holder are ferry's", () => {
        expect(c.verdict.size).toBeGreaterThan(0);
        for (const [id, v] of c.verdict) {
          const card = cards.get(id);
          expect(card, `${id} is missing`).toBeDefined();
          expect(FERRY_TO_CLAIMBOARD[v.state], `${id}: ferry ${v.state}, claimboard ${card?.state}`).toContain(card?.state);
          expect(card?.holder ?? null, `${id} holder`).toBe(v.holder);
          // the card's own record of ferry's reading is ferry's word (its Stale folded into claimed)
          const word = v.state === 'Stale' ? 'claimed' : v.state.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
          expect(card?.ferry.state, `${id}: card.ferry`).toBe(word);
        }
      });
      it('Needs attention holds exactly the orders that need a human, each with its reason in words', () => {
        if (!c.truth) return;
        for (const [id, t] of c.truth) {
          const card = cards.get(id);
          const lane = card?.lane;
          switch (t.operator_view) {
            case 'needs_human':
              expect(lane === 'attention' || (t.or_stale === true && lane === 'stale'), `${id} needs a human (${t.why}) but is in ${lane}`).toBe(true);
              if (lane === 'attention') {
                expect(card?.alerts.length, `${id} has no reason`).toBeGreaterThan(0);
                for (const a of card?.alerts ?? []) expect(a.text.length).toBeGreaterThan(20);
              } else expect(card?.reason, `${id}: stale without a reason`).toBeTruthy(); // Stale: its stale reason
              break;
            case 'stale':
              expect(['stale', 'running'], id).toContain(lane);
              break;
            case 'fine':
              expect(lane, `${id} is fine but flagged ${card?.flags.join(',')}`).not.toBe('attention');
              break;
          }
        }
      });
    });
  }
});

describe('the reasons, under ferry\'s semantics (channel alpha)', () => {
  const alpha = cases.find((c) => c.name === 'alpha');
  const cards = new Map(alpha ? channelStateOf(alpha.channel).orders.map((o) => [o.order_id, o]) : []);
  it('an order addressed to a name ferry retire released is retired_holder, with the way out', () => {
    // `ferry channel retire` released wisp here (reason "retired", signed by the orchestrator);
    // holder() is still wisp, the assignee: offered to wisp for ever.
    const c = cards.get('a-wisp-offered');
    expect(c?.flags).toEqual(['retired_holder']);
    expect(c?.alerts[0]?.text).toContain('supersede');
  });
  it('a kill or pause acknowledged on an order still offered is stop_not_holding', () => {
    // interrupt.ops.fang.acked.json exists and fang's claim is gone: work_for offers it to fang again.
    expect(cards.get('a-killed')?.flags).toEqual(['stop_not_holding']);
    expect(cards.get('a-paused')?.flags).toEqual(['stop_not_holding']);
  });
  it('routine writes raise nothing: restart self-releases, a dead run\'s leftover heartbeat, retire releases, a steer acknowledged', () => {
    for (const id of ['a-changes', 'a-released', 'a-retired', 'a-steered']) expect(cards.get(id)?.flags, id).toEqual([]);
    expect(state(cards.get('a-retired'))).toEqual(['open', null]);
  });
});

function state(c: { state: string; holder: string | null } | undefined) {
  return [c?.state, c?.holder ?? null];
}

describe('the index reads the ferry channels as `claimboard state` does', () => {
  for (const c of cases) {
    it(`${c.name}: every card of the index equals the one-shot derivation`, async () => {
      const { openMemory } = await import('./db');
      const { Indexer } = await import('./indexer');
      const { nodeVerify } = await import('./disk/node-verify');
      const stateDir = argValue(c.args, '--ferryman-state');
      const fleetAgents = stateDir ? readFleetRoster(stateDir) : [];
      const staleAfterMs = Number(argValue(c.args, '--stale-after') ?? 300) * 1000;
      const now = Date.now();
      const db = openMemory();
      const ix = new Indexer({ root: c.channel, db, staleAfterMs, clock: () => now, watch: false, verify: nodeVerify, fleetAgents, workers: 0 });
      await ix.start();
      await ix.stop();
      const indexed = (db.prepare('SELECT card FROM cards ORDER BY order_id').all() as { card: string }[]).map((r) => JSON.parse(r.card) as unknown);
      const derived = channelStateOf(c.channel, { nowMs: now, fleetAgents, staleAfterMs }).orders;
      expect(indexed).toEqual(JSON.parse(JSON.stringify(derived)));
    });
  }
});
