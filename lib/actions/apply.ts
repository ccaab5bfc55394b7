import 'server-only';
/**
 * Server side of operator actions: verify, check the precondition against a
 * fresh derivation of the current folder, write atomically, append the ledger line. The web
 * endpoint and the CLI both call `applyAction`, so both refuse exactly the same things.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ActionRequestSchema, ackRefusal, ackTargetOf, agentLooksAlive, reopenTargetOf, decisionPath, LEDGER_KIND, ledgerPathOf, RECORD_KIND, reopenRefusal, requeueRefusal, retirePlan, retireRefusal, supersedeRefusal, type ActionRequest, type Refusal, type RefusalCode } from '../ledger/actions';
import { HTTP_STATUS, type RefusalReason } from '../errors';
import type { AgentRecord } from '../ledger/records';
import { deriveChannel, type ChannelEntry, type ChannelState } from '../ledger/channel';
import type { Card } from '../ledger/derive';
import { targetList } from '../ledger/targets';
import { parseStrictJsonText, toPlain } from '../ledger/json';
import { canonicalName } from '../ledger/names';
import { ledgerLinePayload, signingPayload } from '../ledger/payloads';
import { bindingOf, bindingRefusal, CHANNEL_FILE, channelFileBytes } from '../ledger/channel-binding';
import { parseRecord, shapeRecord, type LedgerRecord, type OrderRecord, type SignedRecord } from '../ledger/records';
import { parseTimestamp } from '../ledger/time';
import { steadyArrival, type ClockStep } from '../ledger/clock-steps';
import { checkSignature, isOperator, verifyRecord, type Ed25519Verify } from '../ledger/verify';
import { assertChannelRoot, ChannelUnreadableError, entryFromStat, listCapped, listOrderFolder, MAX_FOLDER_ENTRIES, readChannelFile, statEntry, walkChannel } from '../index/disk/read-channel';
import { statKey } from '../index/writer/order-pass';
import { ledgerPrevOf, stageLedgerLine, stageNewFile, stageOwnFile, WriteError, type StagedWrite } from './write';
import { actingChannel } from './channel-id';

/** Everything an action needs besides the request. */
export interface ApplyContext {
  /** Channel root. */
  readonly root: string;
  /** This machine's clock, ms: the index's (steady-clock.ts) when served. */
  readonly nowMs: number;
  /**
   * The wall clock's steps the index saw (lib/ledger/clock-steps.ts): the files' ctimes are put
   * on the same steady timeline as `nowMs`. A ctime in the window after a step back reads as
   * written after it (newer), so a rule that needs a stale claim refuses rather than allows.
   */
  readonly clockSteps?: readonly ClockStep[];
  /**
   * A file's arrival as the index stored it, with the stat identity it had then: a file the
   * index knew, unchanged since, keeps that arrival (as on the board) instead of being put on the
   * steady timeline again, where a ctime shortly before a step back would read as newer.
   */
  readonly knownArrival?: (rel: string) => { readonly stat: string; readonly arrival_ms: number } | undefined;
  /** stale_after, ms. */
  readonly staleAfterMs: number;
  readonly operators: readonly string[];
  /**
   * The channel id to sign for while the folder names none (lib/actions/channel-id.ts): an act
   * signed for it writes `claimboard.channel.json` with its own files. Absent: an act on a folder
   * that names no channel is refused.
   */
  readonly proposedChannel?: string;
  /** Pinned keys (the index's); absent: the folder's keys. */
  readonly pins?: ReadonlyMap<string, string>;
  /** This machine's ferry fleet roster (`--ferryman-state`). */
  readonly fleetAgents?: readonly { readonly path: string; readonly record: AgentRecord }[];
  readonly verify: Ed25519Verify;
  /**
   * Order ids whose folders must be read besides the action's own: orders depending on an
   * order (reopen) and orders holding claims of an agent (retire). Absent: the whole channel
   * is read (the CLI).
   */
  readonly related?: { dependentsOf(id: string): string[]; claimsOf(agent: string): string[] };
}

/**
 * A refusal as applyAction returns it: its code, and the HTTP status of that code
 * (lib/errors.ts HTTP_STATUS) for the callers that report a status (the endpoints' bulk
 * results, the CLI's callers, the tests).
 */
export type ApplyRefusal = Refusal & {
  readonly status: (typeof HTTP_STATUS)[RefusalCode];
  /** Set only when the act was partly written: the paths put in place before the failure (never empty then), and those that were not. */
  readonly written?: readonly string[];
  readonly not_written?: readonly string[];
};

export type ApplyResult = { readonly status: 201; readonly written: readonly string[]; readonly card?: Card; readonly orders?: readonly Card[] } | ApplyRefusal;

const refuse = (code: RefusalCode, reasonCode: RefusalReason, reason: string, card?: Card): ApplyRefusal => ({ code, status: HTTP_STATUS[code], reason, reason_code: reasonCode, ...(card ? { card } : {}) });

/** Reads the roster, retirements and the named orders' folders (or everything) from disk, and derives them. */
export function deriveSubset(ctx: ApplyContext, orderIds: readonly string[] | null): ChannelState {
  assertChannelRoot(ctx.root);
  const entries: ChannelEntry[] = [];
  const steps = ctx.clockSteps ?? [];
  const add = (rel: string) => {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(path.join(/*turbopackIgnore: true*/ ctx.root, rel));
    } catch {
      return;
    }
    const e = entryFromStat(ctx.root, rel, st);
    if (steps.length === 0) return void entries.push(e);
    const known = ctx.knownArrival?.(rel);
    entries.push({ ...e, arrivalMs: known && known.stat === statKey(st) ? known.arrival_ms : steadyArrival(e.arrivalMs, steps) });
  };
  // A folder not read (not listable, too many entries) is marked on its entry: one problem row.
  const markUnread = (rel: string, why: string) => {
    const i = entries.findLastIndex((e) => e.path === rel);
    const e = entries[i];
    if (e) entries[i] = { ...e, unread: why };
  };
  if (orderIds === null) {
    walkChannel(ctx.root, (rel) => add(rel), markUnread);
  } else {
    // Only real folders are listed: a symlinked agents/, retirements/, tasks/ or tasks/<id>/ is
    // never followed out of the channel (it is a `symlink` problem).
    const isDir = (rel: string) => statEntry(ctx.root, rel)?.type === 'dir';
    for (const top of ['agents', 'retirements']) {
      add(top);
      if (!isDir(top)) continue;
      // Capped as every folder read on a request is: a roster past it is not read, and the act is refused.
      const listed = listCapped(path.join(/*turbopackIgnore: true*/ ctx.root, top), MAX_FOLDER_ENTRIES);
      if ('refused' in listed) throw new ChannelUnreadableError(`${top}/ is not read (${listed.refused}): no act can be checked against it`);
      for (const name of listed.names) if (!name.startsWith('.')) add(`${top}/${name}`);
    }
    const tasksIsDir = isDir('tasks');
    for (const id of new Set(orderIds)) {
      if (!tasksIsDir) break;
      add(`tasks/${id}`);
      if (!isDir(`tasks/${id}`)) continue;
      // The indexer's own listing: capped, a folder it does not read is one problem row here too.
      const listing = listOrderFolder(ctx.root, id);
      if (listing?.refused !== undefined) {
        markUnread(`tasks/${id}`, listing.refused);
        continue;
      }
      for (const e of listing?.entries ?? []) add(e.rel);
    }
  }
  return deriveChannel(entries, { nowMs: ctx.nowMs, staleAfterMs: ctx.staleAfterMs, operators: ctx.operators, pins: ctx.pins, fleetAgents: ctx.fleetAgents, verify: ctx.verify });
}

const bytesOf = (o: Record<string, unknown>) => new TextEncoder().encode(JSON.stringify(o, null, 2) + '\n');

/**
 * Applies one operator action. Returns 201 with the channel-relative paths
 * written and the order's card after the write, or a refusal: `bad_request` (400) bad input,
 * `forbidden` (403) not an operator or a bad signature, `conflict` (409) the folder no longer
 * matches what the operator saw (with the current card), `refused` (422) a rule of docs/channel-format.md
 * refuses it. On any refusal nothing is written, but for an act partly written (`writeAll`), whose
 * refusal names what was (`written`) and what was not (`not_written`).
 * Throws only for programming errors.
 */
export function applyAction(body: unknown, ctx: ApplyContext): ApplyResult {
  const parsed = ActionRequestSchema.safeParse(body);
  if (!parsed.success) return refuse('bad_request', 'malformed', `bad request: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}`);
  const req = parsed.data as ActionRequest;
  const kind = RECORD_KIND[req.action];

  // The records must be well formed before anything else is looked at.
  const shaped = shapeRecord(kind, bytesOf(req.record));
  if (!shaped.ok) return refuse('bad_request', 'malformed', `the ${kind} record is not valid: ${shaped.detail}`);
  const record = shaped.record as SignedRecord;
  const releases: SignedRecord[] = [];
  for (const r of req.releases ?? []) {
    const s = shapeRecord('release', bytesOf(r));
    if (!s.ok) return refuse('bad_request', 'malformed', `a release record is not valid: ${s.detail}`);
    releases.push(s.record as SignedRecord);
  }
  if (req.action !== 'retire' && releases.length > 0) return refuse('bad_request', 'malformed', 'only a retirement carries extra releases');
  let newOrder: OrderRecord | null = null;
  if (req.action === 'supersede') {
    if (!req.order) return refuse('bad_request', 'malformed', 'a supersede carries the new order');
    const s = shapeRecord('order', bytesOf(req.order));
    if (!s.ok || s.record.kind !== 'order') return refuse('bad_request', 'malformed', `the new order is not valid: ${s.ok ? 'not an order' : s.detail}`);
    newOrder = s.record;
  } else if (req.order) return refuse('bad_request', 'malformed', 'only a supersede carries a new order');
  const signer = canonicalName(record.signed_by ?? '');

  // Which folders to read fresh.
  let ids: string[] | null = null;
  if (ctx.related) {
    if (req.action === 'retire') {
      const agent = record.kind === 'retirement' ? record.agent : '';
      ids = [...ctx.related.claimsOf(agent), ...(req.expect.retire?.orders ?? [])];
    } else {
      const id = 'order_id' in record ? record.order_id : '';
      ids = [id, ...ctx.related.dependentsOf(id), ...(newOrder ? [newOrder.id] : [])];
    }
  }
  let state: ChannelState;
  try {
    state = deriveSubset(ctx, ids);
    // The orders it depends on decide whether it reads blocked (or missing_dependency): read them too.
    if (ids) {
      const read = new Set(ids);
      const deps = [...read].flatMap((i) => state.views.get(i)?.folder.order.record.depends_on ?? []).filter((d) => !read.has(d));
      if (deps.length > 0) {
        ids = [...ids, ...new Set(deps)];
        state = deriveSubset(ctx, ids);
      }
    }
  } catch (e) {
    return refuse('refused', 'no_channel', e instanceof Error ? e.message : String(e));
  }

  // Who is acting (403).
  if (!isOperator(state.roster, signer)) {
    return refuse('forbidden', 'not_operator', record.signed_by ? `${signer} is not an operator of this channel` : 'the record is not signed');
  }
  for (const r of [record, ...releases, ...(newOrder ? [newOrder] : [])]) {
    const bad = verifyRecord(r, state.roster, ctx.verify);
    if (bad) return refuse('forbidden', 'bad_signature', `${r.kind} refused: ${bad.problem.replace('_', ' ')}: ${bad.detail}`);
  }

  // The act must be signed for this channel (lib/ledger/channel-binding.ts): one signed for
  // another is refused, whatever its ledger chain says.
  const channel = actingChannel(ctx.root, ctx.proposedChannel);
  if ('problem' in channel) return refuse('refused', 'no_channel', channel.problem);
  for (const r of [record, ...releases, ...(newOrder ? [newOrder] : [])]) {
    const bad = bindingRefusal(`the ${r.kind} record`, bindingOf(r.raw, () => signingPayload(r), state.roster, ctx.verify), channel.id);
    if (bad) return refuse(bad.code, bad.reason_code, bad.reason);
  }

  // The records must say what the operator saw (400).
  const mismatch = recordMismatch(req, record, releases, signer);
  if (mismatch) return refuse('bad_request', 'mismatch', mismatch);

  // The folder must still be what the operator saw (409), and the rules must allow it (422).
  let orderCard: Card | undefined;
  if (req.action === 'retire') {
    const agent = req.expect.retire?.agent ?? '';
    const r = retireRefusal(state, agent);
    if (r) return refuse('refused', 'rule', r);
    const plan = retirePlan(state, agent);
    const saw = [...(req.expect.retire?.orders ?? [])].sort();
    if (plan.join(',') !== saw.join(',')) {
      return refuse('conflict', 'plan_changed', `${agent} now holds ${plan.length ? plan.join(', ') : 'nothing'} by an active claim with no result; you saw ${saw.length ? saw.join(', ') : 'nothing'}`);
    }
    if (agentLooksAlive(state, agent, ctx.nowMs, ctx.staleAfterMs) && (req.expect.retire?.confirm_alive ?? 0) < 2) {
      return refuse('refused', 'looks_alive', `${agent} looks alive (a heartbeat of it arrived within the stale window): confirm twice to retire it anyway`);
    }
  } else {
    const e = req.expect.order;
    if (!e) return refuse('bad_request', 'malformed', 'expect.order is required for this action');
    const view = state.views.get(e.order_id);
    if (!view) return refuse('conflict', 'no_order', `there is no order ${e.order_id} in the folder now`);
    orderCard = view.card;
    const c = view.card;
    if (c.state !== e.state || c.holder !== e.holder || (c.target ?? null) !== e.target) {
      return refuse('conflict', 'card_moved', `${c.order_id} is now ${c.state}${c.holder ? ` held by ${c.holder}` : ''}; you saw ${e.state}${e.holder ? ` held by ${e.holder}` : ''}`, c);
    }
    if (newOrder) {
      const bad = newOrderRefusal(newOrder, view.folder.order.record, record, signer, state);
      if (bad) return refuse(bad.code, bad.reason_code, bad.reason, c);
    }
    const rule =
      req.action === 'supersede'
        ? supersedeRefusal(c)
        : req.action === 'requeue'
        ? requeueRefusal(view)
        : req.action === 'reopen'
          ? reopenRefusal(c, ctx.related ? ctx.related.dependentsOf(c.order_id).map((d) => state.views.get(d)?.card).filter((x): x is Card => !!x) : state.orders.filter((o) => o.depends_on.includes(c.order_id)))
          : ackRefusal(c);
    if (rule) return refuse('refused', 'rule', rule, c);
    if ((req.action === 'ack' && record.kind === 'ack') || (req.action === 'reopen' && record.kind === 'reopen')) {
      // What the record must name is the order as it is now: all the operator's earlier file of that
      // kind named, and the new decision (ackTargetOf, reopenTargetOf): replacing it undoes nothing.
      const want = record.kind === 'ack' ? ackTargetOf(c, signer) : reopenTargetOf(c, signer);
      if (targetList(record.target) !== want) {
        // Not "sign again": the same card would sign the same record; the page must take the order as it is now.
        return refuse('conflict', 'target_moved', `the ${record.kind} names ${record.target}; ${c.order_id} as it is now needs one naming ${want ?? 'nothing'}: reload the order and decide again`, c);
      }
    }
  }

  // The ledger line: signed by the operator, chained to the file as the operator saw it.
  const ledgerRel = ledgerPathOf(signer);
  const ledgerAbs = path.join(/*turbopackIgnore: true*/ ctx.root, ledgerRel);
  const lineProblem = ledgerLineProblem(req, signer, state, ctx.verify, channel.id);
  if (lineProblem) return lineProblem;
  const current = ledgerPrevOf(ledgerAbs);
  // Checked before anything is written: a ledger line that cannot be appended refuses the whole act.
  if (current.refused) return refuse('conflict', 'ledger_unreadable', `${current.refused}; nothing was written`);
  if (current.prev !== req.expect.ledger_prev) return refuse('conflict', 'ledger_moved', `${ledgerRel} has a new line since this action was signed: sign again`);

  // Paths: only the operator's own, never over another writer's file; the channel's id first
  // when this act is the first to name it.
  const plans: { rel: string; bytes: Uint8Array; replace: boolean }[] = channel.create ? [{ rel: CHANNEL_FILE, bytes: channelFileBytes(channel.id, new Date(ctx.nowMs).toISOString()), replace: false }] : [];
  for (const r of [...(newOrder ? [newOrder] : []), record, ...releases]) {
    const rel = decisionPath(r.kind as 'release' | 'retirement' | 'reopen' | 'ack' | 'supersede' | 'order', r.raw);
    if (!rel) return refuse('bad_request', 'malformed', `cannot name a file for this ${r.kind}`);
    const abs = path.join(/*turbopackIgnore: true*/ ctx.root, rel);
    const replace = r.kind === 'reopen' || r.kind === 'ack';
    const existing = inTheWay(abs, rel, signer);
    if (existing === 'foreign') return refuse('conflict', 'in_the_way', `${rel} is in the way and was not written by ${signer}; nothing was written`);
    if (existing === 'own' && !replace) return refuse('conflict', 'replay', `${rel} already exists: this action was already taken (a replay?)`);
    plans.push({ rel, bytes: bytesOf(withSignature(r)), replace });
  }

  const wrote = writeAll(ctx.root, plans, { rel: ledgerRel, line: req.ledger_line, prev: req.expect.ledger_prev });
  if (wrote.refusal) return wrote.refusal;

  // The cards after the write, for the page.
  const after = deriveSubset(ctx, ids);
  const cardAfter = orderCard ? after.views.get(orderCard.order_id)?.card : undefined;
  const touched = req.action === 'retire' ? (req.expect.retire?.orders ?? []).map((id) => after.views.get(id)?.card).filter((c): c is Card => !!c) : undefined;
  return { status: 201, written: wrote.written, ...(cardAfter ? { card: cardAfter } : {}), ...(touched ? { orders: touched } : {}) };
}

/** The record as it will be written: its own fields as written (its channel binding among them) plus the signature. */
function withSignature(r: SignedRecord): Record<string, unknown> {
  return { ...r.raw, signed_by: r.signed_by, signature: r.signature };
}

/** A write's failure as a refusal's codes: a file in the way or a ledger moved on is the folder moving on (sign again for the ledger); a failing disk is not. */
function writeRefusal(e: unknown): [RefusalCode, RefusalReason] {
  if (!(e instanceof WriteError) || e.code === 'io') return ['refused', 'write_failed'];
  return ['conflict', e.code === 'moved_on' ? 'ledger_moved' : 'in_the_way'];
}
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * Writes an act's files and then its ledger line, or refuses having written nothing: every file
 * is staged first (its temp file written and fsynced), every target checked again, and only then
 * are they put in place, the ledger line last. A full disk, a file in the way or a ledger that
 * moved on therefore refuse with nothing written. Only what changes in the instant between two
 * placements (another process replacing the ledger then) leaves the act partly written: the
 * refusal then says which paths were written and which were not (`written`, `not_written`), and
 * the Activity page shows the record without its line (lib/ledger/acts.ts).
 */
function writeAll(
  root: string,
  plans: readonly { rel: string; bytes: Uint8Array; replace: boolean }[],
  ledger: { rel: string; line: string; prev: string },
): { written: string[]; refusal?: undefined } | { refusal: ApplyRefusal } {
  const staged: { rel: string; w: StagedWrite }[] = [];
  const discardFrom = (i: number) => {
    for (const s of staged.slice(i).reverse()) s.w.discard();
  };
  const nothing = (e: unknown) => ({ refusal: refuse(...writeRefusal(e), `${messageOf(e)}; nothing was written`) });
  try {
    for (const p of plans) {
      const abs = path.join(/*turbopackIgnore: true*/ root, p.rel);
      staged.push({ rel: p.rel, w: p.replace ? stageOwnFile(abs, p.bytes, root) : stageNewFile(abs, p.bytes, root) });
    }
    staged.push({ rel: ledger.rel, w: stageLedgerLine(path.join(/*turbopackIgnore: true*/ root, ledger.rel), ledger.line, ledger.prev, root) });
  } catch (e) {
    discardFrom(0);
    return nothing(e);
  }
  const inTheWay = staged.map((s) => s.w.check()).find((x) => x !== null);
  if (inTheWay) {
    discardFrom(0);
    return nothing(inTheWay);
  }
  const written: string[] = [];
  for (const [i, s] of staged.entries()) {
    try {
      s.w.place();
      written.push(s.rel);
    } catch (e) {
      discardFrom(i + 1);
      if (written.length === 0) return nothing(e);
      const notWritten = staged.slice(i).map((x) => x.rel);
      const reason = `partly written: ${partlyWords(written, notWritten, ledger.rel)}: ${messageOf(e)}`;
      return { refusal: { ...refuse(...writeRefusal(e), reason), written, not_written: notWritten } };
    }
  }
  return { written };
}

/** "tasks/t1/release.ops.fang.json written; its ledger line (ledger.ops.jsonl) was not", or with the other files not written named too. */
function partlyWords(written: readonly string[], notWritten: readonly string[], ledgerRel: string): string {
  const others = notWritten.filter((r) => r !== ledgerRel);
  const line = `its ledger line (${ledgerRel})`;
  return `${written.join(', ')} written; ${others.length ? `${others.join(', ')} and ${line} were not` : `${line} was not`}`;
}

/** What is at `abs` now: nothing, a valid record of the same operator, or something else. */
function inTheWay(abs: string, rel: string, operator: string): 'none' | 'own' | 'foreign' {
  const read = readChannelFile(abs);
  if ('missing' in read) return 'none';
  if ('refused' in read) return 'foreign';
  const kind = rel.startsWith('retirements/') ? 'retirement' : (path.basename(rel).split('.')[0] as 'release' | 'reopen' | 'ack' | 'supersede' | 'order');
  const parsed = parseRecord(kind, read.bytes, path.basename(rel), rel.startsWith('tasks/') ? (rel.split('/')[1] ?? null) : null);
  if (!parsed.ok) return 'foreign';
  const r: LedgerRecord = parsed.record;
  const by = 'signed_by' in r && r.signed_by ? canonicalName(r.signed_by) : '';
  return by === operator ? 'own' : 'foreign';
}

/**
 * Why a supersede's new order may not be written, or null: an id already taken is the folder
 * moving on (`id_taken`, choose another id); anything else is the request (`mismatch`).
 */
function newOrderRefusal(newOrder: OrderRecord, old: OrderRecord, record: SignedRecord, signer: string, state: ChannelState): Omit<Refusal, 'card'> | null {
  const mismatch = (reason: string): Omit<Refusal, 'card'> => ({ code: 'bad_request', reason_code: 'mismatch', reason });
  if (newOrder.issued_by !== signer) return mismatch('the new order must be issued by the signing operator');
  if (newOrder.id === old.id) return mismatch('the new order needs an id of its own');
  if (state.views.has(newOrder.id)) return { code: 'conflict', reason_code: 'id_taken', reason: `there is already an order ${newOrder.id}; choose another id` };
  if (newOrder.supersedes !== old.id) return mismatch(`the new order must say it supersedes ${old.id}`);
  if (newOrder.project_id !== old.project_id || newOrder.payload_digest !== old.payload_digest) {
    return mismatch(`the new order must carry ${old.id}'s project and task unchanged (its payload could not be copied exactly)`);
  }
  if (record.kind === 'supersede' && record.by !== newOrder.id) return mismatch(`the supersede record names ${record.by}, not the new order ${newOrder.id}`);
  if (newOrder.assigned_to !== null && !state.roster.entries.has(newOrder.assigned_to)) return mismatch(`${newOrder.assigned_to} is not in the roster`);
  if (newOrder.assigned_to !== null && state.retirements.some((r) => r.record.agent === newOrder.assigned_to)) return mismatch(`${newOrder.assigned_to} is retired`);
  return null;
}

/** Why the records do not describe what the operator saw, or null. */
function recordMismatch(req: ActionRequest, record: SignedRecord, releases: readonly SignedRecord[], signer: string): string | null {
  switch (req.action) {
    case 'requeue': {
      const e = req.expect.order;
      if (record.kind !== 'release' || !e) return 'a re-queue is a release';
      if (record.order_id !== e.order_id) return `the release is for ${record.order_id}, not ${e.order_id}`;
      if (record.released !== e.holder) return `the release names ${record.released}, not the holder ${e.holder ?? '(none)'}`;
      if (record.releaser !== signer) return 'the releaser must be the signing operator';
      if (!record.reason.startsWith('requeued: ')) return 'a re-queue release has the reason "requeued: <note>"';
      return null;
    }
    case 'reopen':
    case 'ack': {
      const e = req.expect.order;
      if ((record.kind !== 'reopen' && record.kind !== 'ack') || !e) return `an ${req.action} is a ${req.action} record`;
      if (record.order_id !== e.order_id) return `the ${record.kind} is for ${record.order_id}, not ${e.order_id}`;
      // The target is checked against the order as it is now (ackTargetOf, reopenTargetOf), with the card.
      if (record.operator !== signer) return `the ${record.kind}'s operator must be the signer`;
      return null;
    }
    case 'supersede': {
      const e = req.expect.order;
      if (record.kind !== 'supersede' || !e) return 'a supersede is a supersede record';
      if (record.order_id !== e.order_id) return `the supersede is for ${record.order_id}, not ${e.order_id}`;
      if (record.operator !== signer) return "the supersede's operator must be the signer";
      return null;
    }
    case 'retire': {
      const e = req.expect.retire;
      if (record.kind !== 'retirement' || !e) return 'a retire is a retirement';
      if (record.agent !== canonicalName(e.agent)) return `the retirement names ${record.agent}, not ${e.agent}`;
      if (record.operator !== signer) return "the retirement's operator must be the signer";
      const ids = new Set<string>();
      for (const r of releases) {
        if (r.kind !== 'release' || r.released !== record.agent || r.releaser !== signer || r.reason !== 'retired') {
          return `each release of a retirement releases ${record.agent}, by ${signer}, with the reason "retired"`;
        }
        ids.add(r.order_id);
      }
      const saw = new Set(e.orders);
      if (ids.size !== releases.length || ids.size !== saw.size || [...ids].some((i) => !saw.has(i))) {
        return 'the releases do not match the orders listed in expect.retire.orders';
      }
      return null;
    }
  }
}

/** Why the ledger line is not this operator's signed account of this action, or null. */
function ledgerLineProblem(req: ActionRequest, signer: string, state: ChannelState, verify: Ed25519Verify, channel: string): ApplyRefusal | null {
  const p = parseStrictJsonText(req.ledger_line);
  if (!p.ok || p.node.t !== 'obj') return refuse('bad_request', 'malformed', `the ledger line is not a JSON object${p.ok ? '' : `: ${p.reason}`}`);
  const l = toPlain(p.node) as Record<string, unknown>;
  const str = (k: string) => (typeof l[k] === 'string' ? l[k] : null);
  const created = parseTimestamp(str('created_at') ?? '');
  if (str('kind') !== LEDGER_KIND[req.action]) return refuse('bad_request', 'mismatch', `the ledger line's kind must be ${LEDGER_KIND[req.action]}`);
  if (canonicalName(str('actor') ?? '') !== signer) return refuse('bad_request', 'mismatch', "the ledger line's actor must be the signing operator");
  if (str('summary') === null || str('prev') === null || !created.ok) return refuse('bad_request', 'malformed', 'the ledger line lacks summary, prev or a valid created_at');
  if (str('prev') !== req.expect.ledger_prev) return refuse('bad_request', 'mismatch', "the ledger line's prev differs from expect.ledger_prev");
  if (canonicalName(str('signed_by') ?? '') !== signer) return refuse('forbidden', 'bad_signature', 'the ledger line must be signed by the acting operator');
  const check = checkSignature(
    str('signed_by'),
    str('signature'),
    ledgerLinePayload({ kind: str('kind') ?? '', actor: str('actor') ?? '', summary: str('summary') ?? '', reference: str('reference'), created_at: created.value, prev: str('prev') ?? '' }),
    state.roster,
    verify,
  );
  if (check !== 'valid') return refuse('forbidden', 'bad_signature', `the ledger line's signature: ${check.replace('_', ' ')}`);
  const payload = ledgerLinePayload({ kind: str('kind') ?? '', actor: str('actor') ?? '', summary: str('summary') ?? '', reference: str('reference'), created_at: created.value, prev: str('prev') ?? '' });
  const bound = bindingRefusal('the ledger line', bindingOf(l, payload, state.roster, verify), channel);
  return bound ? refuse(bound.code, bound.reason_code, bound.reason) : null;
}
