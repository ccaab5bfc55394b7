/**
 * Builds channel folders in memory for tests of the pure core: real records, really signed
 * (node:crypto, the vector identities' seeds; other names get a seed derived from the name),
 * each with an arrival `age` in seconds before `now`.
 */
import { deriveChannel, type ChannelEntry, type ChannelState } from '../../lib/ledger/channel';
import { sha256HexOfText } from '../../lib/ledger/canonical';
import { nodePublicKey, nodeSign } from '../../lib/index/disk/node-sign';
import { nodeVerify } from '../../lib/index/disk/node-verify';
import { revisionComponent } from '../../lib/ledger/names';
import { signFields, signLedgerLine, type SignedKind } from '../../lib/ledger/sign';

const VECTOR_SEEDS: Record<string, string> = {
  ops: '6d68517bd645bea101e11cba05adb9d59d0bc49f579c3df82192e1946bb45e4c',
  fang: 'ae342ac0ad3f2843933465c064bd64a0bf1f41bc741ec288f05e7c20d956548b',
  wisp: 'df2676e3035db8fd0b70385bc52a93106832fb5c32235bf43de7cc8705990d50',
  nebra: '0581f7505d9c1485739c736bf12c4869490316e80ea64cbc5c643f6204a9cd77',
};

/** The seed used for `name` (hex). */
export function seedOf(name: string): string {
  return VECTOR_SEEDS[name.toLowerCase()] ?? sha256HexOfText(`seed:${name.toLowerCase()}`);
}

interface At {
  /** Seconds before `now` the file arrived (default 0). */
  age?: number;
}

const T0 = '2026-11-20T09:00:00Z';

export class ChannelBuilder {
  readonly files = new Map<string, ChannelEntry>();
  constructor(readonly nowMs: number = Date.parse('2026-11-30T12:00:00Z')) {}

  /** Writes raw content at `path`. */
  raw(path: string, content: string | Uint8Array, opts: At & { type?: ChannelEntry['type']; size?: number } = {}): this {
    const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
    const type = opts.type ?? 'file';
    this.files.set(path, {
      path,
      type,
      size: opts.size ?? bytes.length,
      arrivalMs: this.nowMs - (opts.age ?? 0) * 1000,
      bytes: type === 'file' ? bytes : null,
    });
    return this;
  }
  json(path: string, value: unknown, opts: At = {}): this {
    return this.raw(path, JSON.stringify(value, null, 2), opts);
  }
  signed(path: string, kind: SignedKind, fields: Record<string, unknown>, signer: string, opts: At = {}): this {
    return this.json(path, signFields(kind, fields, signer, (p) => nodeSign(seedOf(signer), p)), opts);
  }

  agent(name: string, role = 'worker', opts: At & { key?: string | null } = {}): this {
    const key = opts.key === undefined ? nodePublicKey(seedOf(name)) : opts.key;
    return this.json(`agents/${name}.json`, { name, role, capabilities: [], ...(key ? { public_key: key } : {}) }, opts);
  }
  /** The four vector identities: ops (operator), fang, wisp, nebra. */
  roster(): this {
    return this.agent('ops', 'operator').agent('fang').agent('wisp').agent('nebra');
  }
  order(id: string, fields: Record<string, unknown> = {}, opts: At & { signer?: string } = {}): this {
    return this.signed(
      `tasks/${id}/order.json`,
      'order',
      { id, project_id: 'demo', issued_by: 'ops', created_at: T0, payload: { task: 'build' }, requires_review: false, requires_approval: false, ...fields },
      opts.signer ?? 'ops',
      opts,
    );
  }
  claim(order: string, agent: string, opts: At & { claimed_at?: string } = {}): this {
    return this.json(`tasks/${order}/claim.${agent}.json`, { order_id: order, agent, claimed_at: opts.claimed_at ?? '2026-11-20T09:05:00Z' }, opts);
  }
  heartbeat(order: string, agent: string, opts: At & { at?: string } = {}): this {
    return this.json(`tasks/${order}/heartbeat.${agent}.json`, { order_id: order, agent, run: 'r1', pid: 4242, at: opts.at ?? '2026-11-20T09:06:00Z' }, opts);
  }
  result(order: string, agent: string, revision: number, opts: At & { signer?: string } = {}): this {
    return this.signed(
      `tasks/${order}/result.${agent}.${revisionComponent(revision)}.json`,
      'result',
      { order_id: order, agent, revision, submitted_at: '2026-11-20T09:30:00Z', payload: { summary: 'done' } },
      opts.signer ?? agent,
      opts,
    );
  }
  review(order: string, revision: number, accepted: boolean, opts: At & { reviewer?: string } = {}): this {
    const reviewer = opts.reviewer ?? 'ops';
    return this.signed(
      `tasks/${order}/review.${revisionComponent(revision)}.json`,
      'review',
      { order_id: order, revision, reviewer, reviewed_at: '2026-11-20T10:00:00Z', accepted },
      reviewer,
      opts,
    );
  }
  release(order: string, released: string, releaser: string, opts: At & { reason?: string; ferrymanName?: boolean; signer?: string } = {}): this {
    const path = opts.ferrymanName ? `tasks/${order}/release.${releaser}.json` : `tasks/${order}/release.${releaser}.${released}.json`;
    return this.signed(path, 'release', { order_id: order, released, releaser, reason: opts.reason ?? 'requeued: stale', at: '2026-11-20T09:40:00Z' }, opts.signer ?? releaser, opts);
  }
  giveup(order: string, agent: string, reason = 'retry ceiling reached', opts: At = {}): this {
    return this.signed(`tasks/${order}/giveup.${agent}.json`, 'giveup', { order_id: order, agent, run: 'r1', reason, attempts: 3, at: '2026-11-20T09:50:00Z' }, agent, opts);
  }
  /** sha256 of the bytes of a file already added (e.g. a give-up, for `giveup:<digest>`). */
  digestOf(path: string): string {
    const f = this.files.get(path);
    if (!f?.bytes) throw new Error(`no file ${path}`);
    return sha256HexOfText(new TextDecoder().decode(f.bytes));
  }
  reopen(order: string, target: string, opts: At & { operator?: string } = {}): this {
    const operator = opts.operator ?? 'ops';
    return this.signed(`tasks/${order}/reopen.${operator}.json`, 'reopen', { order_id: order, operator, target, reason: 'reopened', at: '2026-11-20T11:00:00Z' }, operator, opts);
  }
  ack(order: string, target: string, opts: At & { operator?: string } = {}): this {
    const operator = opts.operator ?? 'ops';
    return this.signed(`tasks/${order}/ack.${operator}.json`, 'ack', { order_id: order, operator, target, note: 'acknowledged', at: '2026-11-20T11:00:00Z' }, operator, opts);
  }
  retire(agent: string, opts: At & { operator?: string } = {}): this {
    const operator = opts.operator ?? 'ops';
    return this.signed(`retirements/${agent}.${operator}.json`, 'retirement', { agent, operator, reason: 'machine rebuilt', at: '2026-11-20T11:00:00Z' }, operator, opts);
  }
  /** An interrupt of ferry's (`ferry channel interrupt`), one file per issuer and order. */
  interrupt(order: string, action: 'kill' | 'pause' | 'steer', note: string, opts: At & { issuer?: string } = {}): this {
    const issuer = opts.issuer ?? 'ops';
    return this.signed(`tasks/${order}/interrupt.${issuer}.json`, 'interrupt', { order_id: order, action, note, issued_by: issuer, created_at: T0 }, issuer, opts);
  }
  /** ferry's acknowledgement of `issuer`'s interrupt by `agent` (unsigned, one file per issuer and agent). */
  interruptAck(order: string, issuer: string, agent: string, opts: At = {}): this {
    return this.json(`tasks/${order}/interrupt.${issuer}.${agent}.acked.json`, { order_id: order, issued_by: issuer, agent, acknowledged_at: T0 }, opts);
  }
  /** A ledger file of `signer` with one signed line per summary (a note), or per line given with its kind and order. */
  ledger(signer: string, summaries: (string | { kind: string; summary: string; reference: string })[], opts: At = {}): this {
    const lines: string[] = [];
    for (const s of summaries) {
      const line = typeof s === 'string' ? { kind: 'note', summary: s } : s;
      lines.push(signLedgerLine({ ...line, actor: signer, created_at: T0 }, lines[lines.length - 1] ?? null, signer, (p) => nodeSign(seedOf(signer), p)));
    }
    return this.raw(`ledger.${signer}.jsonl`, lines.map((l) => l + '\n').join(''), opts);
  }

  entries(): ChannelEntry[] {
    // Directories are listed as the reader lists them.
    const dirs = new Set<string>();
    for (const p of this.files.keys()) {
      const parts = p.split('/');
      for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
    }
    const out: ChannelEntry[] = [...dirs].filter((d) => !this.files.has(d)).map((d) => ({ path: d, type: 'dir' as const, size: 0, arrivalMs: this.nowMs, bytes: null }));
    return [...out, ...this.files.values()];
  }
  derive(opts: { staleAfterS?: number; operators?: string[]; pins?: Map<string, string> } = {}): ChannelState {
    return deriveChannel(this.entries(), {
      nowMs: this.nowMs,
      staleAfterMs: (opts.staleAfterS ?? 300) * 1000,
      operators: opts.operators,
      pins: opts.pins,
      verify: nodeVerify,
    });
  }
  card(id: string, opts: Parameters<ChannelBuilder['derive']>[0] = {}) {
    const c = this.derive(opts).orders.find((o) => o.order_id === id);
    if (!c) throw new Error(`no card ${id}`);
    return c;
  }
}
