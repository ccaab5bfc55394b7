import { ledgerFactsFromWire, ledgerRetiredNames } from '../../ledger/ledger-facts';
import 'server-only';
/** The pass context a worker thread rebuilds from its plain-data setup (worker-pool.ts). */
import { channelContext, workersOf, knownNames } from '../../ledger/channel';
import { arrivalsFor } from '../../ledger/clock-steps';
import type { Ed25519Verify } from '../../ledger/verify';
import type { PassContext } from '../writer/order-pass';
import type { WorkerSetup } from './worker-pool';

/**
 * The roster the indexer built (agents, master, grants and this machine's fleet roster, from
 * `setup`) and the derive context of a cold index, whose every arrival is a file's ctime put on
 * the steady timeline of `setup.clockSteps` (a cold index knows no file yet). `verify` checks
 * the passes' signatures; the roster's own are checked with `rosterVerify`. Throws what
 * channelContext throws.
 */
export function passContextOf(setup: WorkerSetup, verify: Ed25519Verify, rosterVerify: Ed25519Verify = verify): PassContext {
  const { roster } = channelContext(setup.agents, {
    nowMs: setup.nowMs,
    pins: new Map(setup.pins),
    operators: setup.operators,
    fleetAgents: setup.fleetAgents,
    verify: rosterVerify,
  });
  const arrival = arrivalsFor(setup.clockSteps ?? []);
  const ledger = setup.ledger ? ledgerFactsFromWire(setup.ledger) : undefined;
  return {
    root: setup.root,
    roster,
    derive: {
      nowMs: setup.nowMs,
      staleAfterMs: setup.staleAfterMs,
      retired: new Set(setup.retired),
      ferryRetired: new Set([...setup.ferryRetired, ...(ledger ? ledgerRetiredNames(ledger) : [])]),
      ...(ledger ? { ledger } : {}),
      workers: workersOf(roster, new Set([...setup.retired, ...setup.ferryRetired])),
      known: knownNames(roster),
      persons: roster.operators,
      lastArrivalByAgent: new Map<string, number>(),
    },
    ...(arrival ? { arrival } : {}),
    verify,
  };
}
