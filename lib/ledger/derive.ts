/**
 * Derived state of one order: holder, state, staleness, attention flags and lane.
 *
 * Pure. The clock (`nowMs`) and every file's arrival (`arrivalMs`) are parameters, both on THIS
 * machine's clock, in milliseconds since the Unix epoch. Writer timestamps inside records are
 * never compared across writers: a claim's only breaks ties between claims, exactly as ferryman
 * does on every machine.
 *
 * `deriveOrder` runs the rulebook: the state rule (state.ts), the facts the flags read
 * (flags/facts.ts), each attention flag's rule (flags/, one file each, with its words), and puts
 * the card together.
 */
import { formatLocalInstant } from './time';
import { laneOf, type Alert, type AttentionFlag, type Card, type DeriveContext, type OrderFolder, type OrderState, type StaleReason } from './card';
import { agreesWithFerry } from './ferry-states';
import { ferryStateOf, stateRule } from './state';
import { targetList } from './targets';
import { factsOf, type OrderFacts } from './flags/facts';
import { byFlagOrder, runRules } from './flags';
import { missingText } from './flags/missing-dependency';
import { ferryDifference } from './words';
import { isRetireRelease } from './retire-release';

export * from './card';
export { agreesWithFerry } from './ferry-states';
export { holderOf, isFresh, staleness } from './state';
export { namesTarget, targetList } from './targets';

/**
 * Derives one order's card, except the `blocked` decision, which needs the states of its
 * dependencies: an order with no holder comes back `open` and `resolveDependencies` turns it into
 * `blocked` where a dependency is missing or unfinished. `isOrder` says whether an id names an
 * order of this channel (for `missing_dependency`).
 */
export function deriveOrder(folder: OrderFolder, ctx: DeriveContext, isOrder: (id: string) => boolean): Card {
  const facts = factsOf(folder, ctx, isOrder, stateRule(folder, ctx));
  const { alerts, notes } = runRules(facts);
  alerts.sort(byFlagOrder);
  return cardOf(facts, alerts, facts.runNote ? [facts.runNote, ...notes] : notes);
}

/** The card of an order from its facts and what the rules found. */
function cardOf(f: OrderFacts, alerts: readonly Alert[], notes: readonly string[]): Card {
  const { folder, order, holder, state } = f;
  const flags: AttentionFlag[] = alerts.map((a) => a.flag);
  // Each operator's ack and reopen as they read now: the operator's next file of that kind replaces
  // it and names all of it again, so that nothing decided is undone (actions.ts).
  const decidedBy = (rs: readonly { readonly record: { readonly operator: string; readonly target: string } }[]) =>
    Object.fromEntries(rs.map((r) => [r.record.operator, targetList(r.record.target)] as const));
  const decided = folder.acks.length + folder.reopens.length > 0 ? { acks: decidedBy(folder.acks), reopens: decidedBy(folder.reopens) } : undefined;
  const retires = [...new Set(folder.releases.filter((r) => isRetireRelease(r.record)).map((r) => r.record.released))].sort();
  const ferryState = ferryStateOf(folder, f);
  const ferryNote = agreesWithFerry(ferryState, state) ? undefined : ferryDifference(ferryState, state, holder);
  const hb = f.holderHeartbeat;
  return {
    order_id: order.id,
    state,
    lane: laneOf(state, flags, f.runLane),
    holder,
    flags,
    ...(f.reason !== undefined ? { reason: f.reason } : {}),
    ...(f.sinceMs !== undefined ? { since: formatLocalInstant(f.sinceMs), since_ms: f.sinceMs } : {}),
    ...(f.target !== undefined ? { target: f.target } : {}),
    ...(f.lateTarget ? { late_target: f.lateTarget } : {}),
    ...(decided ? { decided } : {}),
    project_id: order.project_id,
    assigned_to: order.assigned_to,
    issued_by: order.issued_by,
    created_at: order.created_at.text,
    depends_on: order.depends_on,
    requires_review: order.requires_review,
    latest_revision: f.latest,
    holder_fresh: f.holderFresh,
    heartbeat: hb ? { arrival_ms: hb.arrivalMs, at: hb.record.at.text, run: hb.record.run, pid: hb.record.pid } : null,
    missing_dependencies: f.missing,
    other_runs: f.otherRuns,
    late_results: f.lateResults,
    ferry: { state: ferryState, holder },
    ...(ferryNote !== undefined ? { ferry_note: ferryNote } : {}),
    ...(f.runLane !== undefined ? { run_lane: f.runLane } : {}),
    ...(retires.length > 0 ? { retires } : {}),
    alerts,
    notes,
    ...(f.supersede ? { superseded_by: f.supersede.by } : {}),
    ...(order.supersedes ? { supersedes: order.supersedes } : {}),
  };
}

/**
 * An order with no holder is `blocked` when a `depends_on` order is missing
 * or not `done`/`accepted`, else `open`. `stateOf` gives the (already derived) state of
 * another order, or undefined when it is not an order. Returns the card unchanged or blocked.
 */
export function resolveDependencies(card: Card, stateOf: (id: string) => OrderState | undefined): Card {
  if (card.holder !== null || card.state !== 'open') return card;
  const blocked = card.depends_on.some((d) => {
    const s = stateOf(d);
    return s !== 'done' && s !== 'accepted';
  });
  if (!blocked) return card;
  return { ...card, state: 'blocked', lane: laneOf('blocked', card.flags) };
}

/**
 * Re-applies the parts of a card that depend on the rest of the channel, for an index that
 * derives orders one at a time: the stale reason (`agent_silent` vs `heartbeat_lapsed`,
 * from the holder's latest arrival anywhere), `missing_dependency` and `blocked`.
 * `card` must come from deriveOrder; `isOrder`/`stateOf` describe the channel now. With
 * `holdOf`, also this machine's reaper holds: the `dead_run_held` flag with the
 * reason `holdOf` gives for the card (undefined: no hold stands, any earlier flag is dropped).
 * Pure.
 */
export function withChannelFacts(
  card: Card,
  facts: {
    readonly nowMs: number;
    readonly staleAfterMs: number;
    readonly lastArrivalOf: (agent: string) => number | undefined;
    readonly isOrder: (id: string) => boolean;
    readonly stateOf: (id: string) => OrderState | undefined;
    readonly holdOf?: (card: Card) => string | undefined;
  },
): Card {
  let c: Card = card;
  if ((c.state === 'stale' || c.run_lane === 'stale') && c.holder && (c.reason === 'agent_silent' || c.reason === 'heartbeat_lapsed')) {
    const last = Math.max(facts.lastArrivalOf(c.holder) ?? -Infinity, c.heartbeat?.arrival_ms ?? -Infinity);
    const reason: StaleReason = facts.nowMs - last > facts.staleAfterMs ? 'agent_silent' : 'heartbeat_lapsed';
    if (reason !== c.reason) c = { ...c, reason };
  }
  const missing = c.depends_on.filter((d) => !facts.isOrder(d));
  const hadMissing = c.flags.includes('missing_dependency');
  if ((missing.length > 0) !== hadMissing || missing.join(',') !== c.missing_dependencies.join(',')) {
    const alerts: Alert[] = (c.alerts ?? []).filter((a) => a.flag !== 'missing_dependency');
    if (missing.length > 0) alerts.push({ flag: 'missing_dependency', text: missingText(missing) });
    alerts.sort(byFlagOrder);
    const flags: AttentionFlag[] = alerts.map((a) => a.flag);
    c = { ...c, flags, alerts, missing_dependencies: missing, lane: laneOf(c.state, flags, c.run_lane) };
  }
  if (c.holder === null && (c.state === 'open' || c.state === 'blocked')) {
    const blocked = c.depends_on.some((d) => {
      const s = facts.stateOf(d);
      return s !== 'done' && s !== 'accepted';
    });
    const state: OrderState = blocked ? 'blocked' : 'open';
    if (state !== c.state) c = { ...c, state, lane: laneOf(state, c.flags) };
  }
  if (facts.holdOf) c = withHold(c, facts.holdOf(c));
  return c;
}

/** `card` with the `dead_run_held` alert `text` (undefined: without it); the same card when nothing changes. */
function withHold(card: Card, text: string | undefined): Card {
  const alerts0 = card.alerts;
  const had = alerts0.find((a) => a.flag === 'dead_run_held');
  if (had?.text === text) return card;
  const alerts: Alert[] = alerts0.filter((a) => a.flag !== 'dead_run_held');
  if (text !== undefined) alerts.push({ flag: 'dead_run_held', text });
  alerts.sort(byFlagOrder);
  const flags: AttentionFlag[] = alerts.map((a) => a.flag);
  return { ...card, flags, alerts, lane: laneOf(card.state, flags, card.run_lane) };
}
