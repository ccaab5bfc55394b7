/**
 * Hostile-folder corpus for the fuzzer: a seeded PRNG, a rich valid channel built
 * with ChannelBuilder, and pure mutation operators that turn its records into hostile entries
 * (bad bytes, bad names, bad shapes, bad signatures, links out of the folder, temp and conflict
 * files), each with what docs/channel-format.md says must become of it.
 *
 * Pure: nothing here touches the filesystem. `test/fuzz/harness.ts` places a plan on disk.
 *
 * Over 500 lines on purpose: a catalogue of small independent mutation operators; each is a few lines and they are read as a list.
 */
import { ChannelBuilder, seedOf } from '../support/channel-builder';
import { naclPublicKey, naclSign } from '../../lib/ledger/nacl-verify';
import { signFields, signLedgerLine, type SignedKind } from '../../lib/ledger/sign';
import { sha256HexOfText } from '../../lib/ledger/canonical';
import { classifyPath, revisionComponent } from '../../lib/ledger/names';
import type { ProblemCode } from '../../lib/ledger/channel';

// ---- PRNG -----------------------------------------------------------------------------------

/** mulberry32: small, fast, deterministic for a seed. */
export class Rng {
  private a: number;
  constructor(seed: number) {
    this.a = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    this.a = (this.a + 0x6d2b79f5) >>> 0;
    let t = this.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from nothing');
    return items[this.int(items.length)] as T;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** A seed for round `round` of a run seeded `seed` (independent streams). */
export function roundSeed(seed: number, round: number): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  h = Math.imul(h ^ (round + 0x85ebca6b), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

// ---- the valid channel ----------------------------------------------------------------------

const enc = new TextEncoder();
const dec = new TextDecoder();
const T = '2026-11-20T09:00:00Z';

/** One valid file of the base channel. */
export interface BaseFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** The valid channel every round starts from, and what the mutators need to know of it. */
export interface BaseChannel {
  readonly builder: ChannelBuilder;
  readonly files: readonly BaseFile[];
  /** Order ids of the base channel. */
  readonly orders: readonly string[];
  /** Holder by claim (or assignment) of each order that has one, as built. */
  readonly holders: ReadonlyMap<string, string>;
  /** Latest result revision per order with results. */
  readonly latest: ReadonlyMap<string, number>;
}

let cachedBase: BaseChannel | null = null;

/**
 * The base channel: a roster with an operator, workers (one with a dot in its name) and a
 * retired identity; orders in every state (open, offered, claimed with an interrupt, done,
 * changes requested then awaiting review with a recommendation, accepted, released and claimed
 * again, gave up and acknowledged, reopened, blocked by dependencies); a ledger. Built once.
 */
export function baseChannel(): BaseChannel {
  if (cachedBase) return cachedBase;
  const b = new ChannelBuilder();
  b.roster().agent('ka.ro').agent('old');
  b.order('o-open');
  b.order('o-offered', { assigned_to: 'wisp' });
  b.order('o-claimed').claim('o-claimed', 'fang').heartbeat('o-claimed', 'fang');
  b.signed('tasks/o-claimed/interrupt.ops.json', 'interrupt', { order_id: 'o-claimed', action: 'steer', note: 'look at the logs', issued_by: 'ops', created_at: T }, 'ops');
  b.order('o-done').claim('o-done', 'wisp').heartbeat('o-done', 'wisp').result('o-done', 'wisp', 1);
  b.order('o-review', { requires_review: true }).claim('o-review', 'nebra').heartbeat('o-review', 'nebra').result('o-review', 'nebra', 1).review('o-review', 1, false).result('o-review', 'nebra', 2);
  b.signed(
    'tasks/o-review/recommendation.ops.002.json',
    'recommendation',
    { order_id: 'o-review', revision: 2, reviewer: 'ops', recommended_at: '2026-11-20T10:30:00Z', accept: true, reasoning: 'tests pass' },
    'ops',
  );
  b.order('o-accepted', { requires_review: true }).claim('o-accepted', 'fang').result('o-accepted', 'fang', 1).review('o-accepted', 1, true);
  b.order('o-released').claim('o-released', 'fang', { claimed_at: '2026-11-20T09:01:00Z' }).release('o-released', 'fang', 'ops').claim('o-released', 'wisp').heartbeat('o-released', 'wisp');
  b.order('o-gaveup').claim('o-gaveup', 'nebra').giveup('o-gaveup', 'nebra');
  b.ack('o-gaveup', `giveup:${b.digestOf('tasks/o-gaveup/giveup.nebra.json')}`);
  b.order('o-reopen').claim('o-reopen', 'ka.ro').heartbeat('o-reopen', 'ka.ro').result('o-reopen', 'ka.ro', 1).reopen('o-reopen', 'result:1');
  b.order('o-dep', { depends_on: ['o-done', 'o-open'] });
  b.retire('old');
  b.ledger('ops', ['first note', 'second note', 'third note']);
  const files: BaseFile[] = [];
  for (const e of b.files.values()) if (e.bytes) files.push({ path: e.path, bytes: e.bytes });
  cachedBase = {
    builder: b,
    files,
    orders: ['o-open', 'o-offered', 'o-claimed', 'o-done', 'o-review', 'o-accepted', 'o-released', 'o-gaveup', 'o-reopen', 'o-dep'],
    holders: new Map([
      ['o-offered', 'wisp'],
      ['o-claimed', 'fang'],
      ['o-done', 'wisp'],
      ['o-review', 'nebra'],
      ['o-accepted', 'fang'],
      ['o-released', 'wisp'],
      ['o-gaveup', 'nebra'],
      ['o-reopen', 'ka.ro'],
    ]),
    latest: new Map([
      ['o-done', 1],
      ['o-review', 2],
      ['o-accepted', 1],
      ['o-reopen', 1],
    ]),
  };
  return cachedBase;
}

// ---- hostile entries ------------------------------------------------------------------------

/** What docs/channel-format.md says must become of a hostile entry. */
export type Expect =
  /** Not a record (dot and temp names, names outside the layout): never read, no problem row. */
  | { readonly kind: 'skip'; readonly why: string }
  /** Exactly one problem row at `at` (default: the entry's path) with one of `codes`. */
  | { readonly kind: 'problem'; readonly codes: readonly ProblemCode[]; readonly at?: string }
  /** Read as a ledger file: a report for it, and `ledger_broken` exactly when it is not intact. */
  | { readonly kind: 'ledger' }
  /** A record that is folded away (a case variant of a roster name): changes no card, no problem required. */
  | { readonly kind: 'benign'; readonly why: string };

/** Where a symlink points. */
export type LinkTarget =
  /** A path under the sibling `outside/` folder (never part of the channel). */
  | { readonly outside: string; readonly absolute?: boolean }
  /** A channel-relative path (inside the folder). */
  | { readonly inside: string }
  /** Literal link text (dangling links, loops). */
  | { readonly raw: string };

interface HostileCommon {
  /** The mutation operator that made it. */
  readonly op: string;
  /** Channel-relative path as the reader reports it (`/`-separated). */
  readonly path: string;
  /** The path's bytes when a component is not valid UTF-8 (the reader reports `path`, decoded lossily). */
  readonly rawPath?: Uint8Array;
  /** It takes the place of a base file, which then counts as absent. */
  readonly replaces?: boolean;
  readonly expect: Expect;
  /** An order id this entry may add to the board: a card that must carry `bad_record`. */
  readonly extraCard?: string;
}

export type Hostile = HostileCommon &
  (
    | { readonly type: 'file'; readonly bytes: Uint8Array }
    | { readonly type: 'dir'; readonly children: readonly { readonly name: string; readonly bytes: Uint8Array }[] }
    | { readonly type: 'symlink'; readonly target: LinkTarget }
    | { readonly type: 'fifo' }
  );

/** One round's hostile plan. */
export interface Plan {
  readonly hostile: readonly Hostile[];
  /** Files to create under the sibling `outside/` folder (targets of links). */
  readonly outside: readonly { readonly path: string; readonly bytes: Uint8Array }[];
  /** A string that appears only in `outside/` files: it must never appear in what is indexed. */
  readonly marker: string;
}

const PROBLEM_CODES: readonly ProblemCode[] = [
  'symlink',
  'too_large',
  'sync_conflict',
  'invalid',
  'name_mismatch',
  'unsigned',
  'unknown_signer',
  'invalid_signature',
  'unauthorized_signer',
  'key_changed',
  'ledger_broken',
];
/** Every problem code of docs/channel-format.md */
export const LEDGER_PROBLEM_CODES: ReadonlySet<ProblemCode> = new Set(PROBLEM_CODES);

const SIGNATURE_CODES: ReadonlySet<ProblemCode> = new Set(['unsigned', 'unknown_signer', 'invalid_signature', 'unauthorized_signer']);
const CONTENT_CODES: readonly ProblemCode[] = ['invalid', 'name_mismatch', 'too_large'];
const MIB = 1024 * 1024;

// ---- pure byte and JSON mutations -------------------------------------------------------------

/** Every truncation of `bytes`: offsets 0 .. length-1. */
export function truncations(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i++) out.push(bytes.slice(0, i));
  return out;
}

/** `bytes` cut at `offset`. */
export function truncate(bytes: Uint8Array, offset: number): Uint8Array {
  return bytes.slice(0, Math.max(0, Math.min(offset, bytes.length)));
}

/** `bytes` with `n` random bits flipped. */
export function flipBits(rng: Rng, bytes: Uint8Array, n: number): Uint8Array {
  const out = bytes.slice();
  for (let k = 0; k < n && out.length > 0; k++) {
    const i = rng.int(out.length);
    out[i] = (out[i] ?? 0) ^ (1 << rng.int(8));
  }
  return out;
}

/** Offset just past the last non-whitespace byte: truncating before it can never leave valid JSON. */
export function lastSignificant(bytes: Uint8Array): number {
  let i = bytes.length;
  while (i > 0 && [0x20, 0x0a, 0x0d, 0x09].includes(bytes[i - 1] ?? 0)) i--;
  return i;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function parseObject(bytes: Uint8Array): Record<string, Json> | null {
  try {
    const v = JSON.parse(dec.decode(bytes)) as Json;
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/** Serializes an object from `[key, raw JSON text]` pairs (allows duplicate keys and raw tokens). */
function objectText(entries: readonly (readonly [string, string])[]): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
}

function entriesOf(o: Record<string, Json>): [string, string][] {
  return Object.entries(o).map(([k, v]) => [k, JSON.stringify(v)]);
}

/** A value nested `depth` arrays (or objects) deep. */
export function deepNesting(depth: number, objects: boolean): string {
  return objects ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + '1' + ']'.repeat(depth);
}

const HUGE_NUMBERS = ['1e400', '-1e400', '1' + '0'.repeat(400), '123456789012345678901234567890', '1.7976931348623159e308', '-0', '4294967296', '1e-400', '0.' + '0'.repeat(500) + '1', '9'.repeat(5000)];

const WRONG_VALUES = ['null', 'true', '0', '-1', '1.5', '"x"', '""', '[]', '{}', '[null]', '{"a":1}', '"2026-13-45T99:99:99Z"', '"\\u0000"'];

/** Unicode oddities as raw byte sequences to splice into a file (most are invalid UTF-8 or JSON). */
const ODD_BYTES: readonly (readonly [string, readonly number[]])[] = [
  ['bom', [0xef, 0xbb, 0xbf]],
  ['nul', [0x00]],
  ['overlong-slash', [0xc0, 0xaf]],
  ['overlong-3', [0xe0, 0x80, 0xaf]],
  ['overlong-4', [0xf0, 0x80, 0x80, 0xaf]],
  ['lone-high-surrogate-utf8', [0xed, 0xa0, 0x80]],
  ['lone-low-surrogate-utf8', [0xed, 0xb0, 0x80]],
  ['above-max', [0xf4, 0x90, 0x80, 0x80]],
  ['stray-continuation', [0x80]],
  ['ff', [0xff]],
  ['truncated-seq', [0xe2, 0x82]],
  ['control', [0x01]],
];

/** Unicode oddities as JSON string content (escapes or characters that are valid JSON). */
const ODD_TEXT: readonly (readonly [string, string])[] = [
  ['lone-surrogate-escape', '\\ud800'],
  ['lone-low-escape', '\\udc00'],
  ['reversed-pair-escape', '\\udc00\\ud800'],
  ['nul-escape', '\\u0000'],
  ['rtl', '\u202e'],
  ['combining', 'e\u0301'],
  ['zero-width', '\u200b'],
  ['bom-char', '\ufeff'],
  ['fullwidth-solidus', '\uff0f..\uff0f'],
  ['division-slash', '\u2215..\u2215'],
  ['dot-dot-slash', '../..'],
  ['backslash', '..\\\\..'],
];

function concat(...parts: (Uint8Array | readonly number[])[]): Uint8Array {
  const n = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

interface ContentMutation {
  readonly op: string;
  readonly bytes: Uint8Array;
}

/**
 * One content mutation of a valid record's bytes: truncation, bit flips, deep nesting, huge
 * strings and numbers, duplicate keys, wrong types, unicode oddities, over the size limit.
 */
export function mutateContent(rng: Rng, bytes: Uint8Array): ContentMutation {
  const obj = parseObject(bytes);
  const keys = obj ? Object.keys(obj) : [];
  const choice = rng.int(12);
  switch (choice) {
    case 0:
      return { op: 'truncate', bytes: truncate(bytes, rng.int(bytes.length)) };
    case 1:
      return { op: 'flip', bytes: flipBits(rng, bytes, rng.range(1, 3)) };
    case 2: {
      if (!obj) break;
      const depth = rng.pick([127, 128, 129, 1000, 20_000, 100_000]);
      const e = entriesOf(obj);
      const at = rng.chance(0.5) ? 'payload' : rng.pick(keys);
      const i = e.findIndex(([k]) => k === at);
      const v = deepNesting(depth, rng.chance(0.5));
      if (i >= 0) e[i] = [at, v];
      else e.push([at, v]);
      return { op: `deep-nesting-${depth}`, bytes: enc.encode(objectText(e)) };
    }
    case 3: {
      if (!obj) break;
      const len = rng.pick([1000, 65_536, 300_000, 900_000]);
      const e = entriesOf(obj);
      const k = rng.pick(keys);
      const i = e.findIndex(([x]) => x === k);
      e[i] = [k, JSON.stringify('x'.repeat(len))];
      return { op: `huge-string-${len}`, bytes: enc.encode(objectText(e)) };
    }
    case 4: {
      if (!obj) break;
      const e = entriesOf(obj);
      const k = rng.pick(keys);
      const i = e.findIndex(([x]) => x === k);
      const n = rng.pick(HUGE_NUMBERS);
      e[i] = [k, n];
      return { op: 'huge-number', bytes: enc.encode(objectText(e)) };
    }
    case 5: {
      if (!obj) break;
      const e = entriesOf(obj);
      const [k, v] = rng.pick(e);
      const dup: [string, string] = [k, rng.chance(0.5) ? v : rng.pick(WRONG_VALUES)];
      e.splice(rng.int(e.length + 1), 0, dup);
      return { op: 'duplicate-key', bytes: enc.encode(objectText(e)) };
    }
    case 6: {
      if (!obj) break;
      const e = entriesOf(obj);
      const k = rng.pick(keys);
      const i = e.findIndex(([x]) => x === k);
      e[i] = [k, rng.pick(WRONG_VALUES)];
      return { op: 'wrong-type', bytes: enc.encode(objectText(e)) };
    }
    case 7: {
      if (!obj) break;
      // A field dropped.
      const e = entriesOf(obj).filter(([k]) => k !== rng.pick(keys));
      return { op: 'missing-field', bytes: enc.encode(objectText(e)) };
    }
    case 8: {
      const [name, odd] = rng.pick(ODD_BYTES);
      if (name === 'bom') return { op: 'unicode-bom', bytes: concat(odd, bytes) };
      // Inside a string: just after the first quote of a random value.
      const text = dec.decode(bytes);
      const quotes: number[] = [];
      for (let i = 0; i < text.length; i++) if (text[i] === '"') quotes.push(i);
      const at = quotes.length ? enc.encode(text.slice(0, rng.pick(quotes) + 1)).length : rng.int(bytes.length);
      return { op: `unicode-${name}`, bytes: concat(bytes.slice(0, at), odd, bytes.slice(at)) };
    }
    case 9: {
      if (!obj) break;
      const [name, odd] = rng.pick(ODD_TEXT);
      const e = entriesOf(obj);
      const strs = e.filter(([, v]) => v.startsWith('"'));
      if (strs.length === 0) break;
      const [k, v] = rng.pick(strs);
      const i = e.findIndex(([x]) => x === k);
      e[i] = [k, rng.chance(0.5) ? `"${odd}${v.slice(1)}` : `${v.slice(0, -1)}${odd}"`];
      return { op: `unicode-${name}`, bytes: enc.encode(objectText(e)) };
    }
    case 10:
      // Over the 1 MiB limit.
      return { op: 'too-large', bytes: concat(bytes, new Uint8Array(MIB + 1 - bytes.length + rng.int(2048)).fill(0x20)) };
    case 11:
      // Not JSON at all.
      return { op: 'garbage', bytes: Uint8Array.from({ length: rng.range(0, 4096) }, () => rng.int(256)) };
  }
  return { op: 'truncate', bytes: truncate(bytes, rng.int(bytes.length)) };
}

// ---- names ----------------------------------------------------------------------------------

/** Tricky variants of a record file name for a writer `w` of kind `prefix` (all mismatch their content). */
function trickyNames(prefix: string, w: string): string[] {
  return [
    `${prefix}..json`,
    `${prefix}.${w}..json`,
    `${prefix}..${w}.json`,
    `${prefix}.${w}.json.`,
    `${prefix}.${w}.json.json`,
    `${prefix}.${w}.`,
    `${prefix}.${w}`,
    `${prefix}.${w}\u2215..\u2215x.json`,
    `${prefix}.${w}\uff0f..\uff0f.json`,
    `${prefix}.${w}\\..\\..\\x.json`,
    `${prefix}.${w}\n.json`,
    `${prefix}.\u202e${w}.json`,
    `${prefix}.${w}\u0301.json`,
    `${prefix}.${w} .json`,
    `${prefix}. ${w}.json`,
    `${prefix}.${w}.json.TMP`,
    `${prefix}.${w}%2f..%2f.json`,
    `${prefix}.${w}.${'x'.repeat(200)}.json`,
  ];
}

// ---- the planner ----------------------------------------------------------------------------

interface Ctx {
  readonly rng: Rng;
  readonly base: BaseChannel;
  readonly byPath: ReadonlyMap<string, Uint8Array>;
  readonly taken: Set<string>;
  readonly out: Hostile[];
  readonly outside: { path: string; bytes: Uint8Array }[];
  readonly marker: string;
  /** Order directories whose order.json was replaced, or that hostile entries created. */
  readonly brokenDirs: Set<string>;
  fresh(): string;
}

/** Ed25519 from a seed (hex): deterministic, so any implementation gives the same bytes. */
export interface Keys {
  sign(seedHex: string, payload: string): string;
  publicKey(seedHex: string): string;
}
/** tweetnacl: pure JavaScript, slow (a few ms a signature). */
export const NACL_KEYS: Keys = { sign: naclSign, publicKey: naclPublicKey };
/** The keys of the plan being built (planning is synchronous). */
let keys: Keys = NACL_KEYS;
const keyOfName = (name: string) => keys.publicKey(seedOf(name));
const sign = (kind: SignedKind, fields: Record<string, unknown>, name: string, keyOf: string = name) =>
  signFields(kind, fields, name, (p) => keys.sign(seedOf(keyOf), p));
const pretty = (v: unknown) => enc.encode(JSON.stringify(v, null, 2));

function add(ctx: Ctx, h: Hostile): boolean {
  if (ctx.taken.has(h.path)) return false;
  // A path is free only when no ancestor is a hostile non-directory and nothing lies under it.
  const parts = h.path.split('/');
  for (let i = 1; i < parts.length; i++) {
    const anc = parts.slice(0, i).join('/');
    if (ctx.taken.has(`file:${anc}`)) return false;
  }
  if (ctx.taken.has(`dir:${h.path}`)) return false;
  ctx.taken.add(h.path);
  if (h.type !== 'dir') ctx.taken.add(`file:${h.path}`);
  for (let i = 1; i < parts.length; i++) ctx.taken.add(`dir:${parts.slice(0, i).join('/')}`);
  ctx.out.push(h);
  return true;
}

function randomBaseFile(ctx: Ctx, pred: (p: string) => boolean = () => true): BaseFile {
  const files = ctx.base.files.filter((f) => pred(f.path));
  return ctx.rng.pick(files);
}

/**
 * A path for a mutated copy of `src` where no valid record of it could ever sit: the same kind,
 * a fresh writer name (so a copy that still parses is a `name_mismatch`), in the same directory
 * or another order's. Order files go to a fresh order directory (one `invalid` at the directory).
 */
function displaced(ctx: Ctx, src: string, name?: string): { path: string; at?: string } {
  const w = ctx.fresh();
  const parts = src.split('/');
  const base = parts[parts.length - 1] ?? '';
  const prefix = base.slice(0, base.indexOf('.') < 0 ? base.length : base.indexOf('.'));
  if (parts[0] === 'tasks') {
    if (base === 'order.json') {
      const dir = `tasks/${w}`;
      ctx.brokenDirs.add(dir);
      return { path: `${dir}/order.json`, at: dir };
    }
    const order = ctx.rng.chance(0.8) ? (parts[1] ?? 'o-open') : ctx.rng.pick(ctx.base.orders);
    const file =
      name ??
      (prefix === 'result' || prefix === 'recommendation' ? `${prefix}.${w}.${revisionComponent(ctx.rng.range(1, 999))}.json` : `${prefix}.${w}.json`);
    return { path: `tasks/${order}/${file}` };
  }
  if (parts[0] === 'agents') return { path: `agents/${name ?? `${w}.json`}` };
  if (parts[0] === 'retirements') return { path: `retirements/${name ?? `${w}.ops.json`}` };
  return { path: `ledger.${w}.jsonl` };
}

const isLedger = (p: string) => !p.includes('/') && p.endsWith('.jsonl');

/** A content mutation of a random base file at a displaced path. */
function opContent(ctx: Ctx): void {
  const src = randomBaseFile(ctx);
  const m = mutateContent(ctx.rng, src.bytes);
  const d = displaced(ctx, src.path);
  const expect: Expect = d.at
    ? { kind: 'problem', codes: ['invalid'], at: d.at }
    : isLedger(d.path)
      ? m.bytes.length > MIB
        ? { kind: 'problem', codes: ['too_large'] }
        : { kind: 'ledger' }
      : { kind: 'problem', codes: CONTENT_CODES };
  add(ctx, { op: `content:${m.op}`, type: 'file', path: d.path, bytes: m.bytes, expect });
}

/** A half-written copy in place of a valid file (a file mid-sync): never valid, so never read. */
function opInPlace(ctx: Ctx): void {
  const src = randomBaseFile(ctx);
  if (ctx.taken.has(src.path)) return;
  // A roster entry with a case variant beside it is not replaced: the variant would take its place.
  if (src.path.startsWith('agents/') && ctx.out.some((h) => h.path.startsWith('agents/') && h.path.toLowerCase() === src.path && h.path !== src.path)) return;
  const orderDir = src.path.startsWith('tasks/') && src.path.endsWith('/order.json') ? src.path.slice(0, -'/order.json'.length) : null;
  const kind = ctx.rng.int(6);
  const ledger = isLedger(src.path);
  const expectFor = (codes: readonly ProblemCode[]): Expect =>
    orderDir ? { kind: 'problem', codes: ['invalid'], at: orderDir } : { kind: 'problem', codes };
  let h: Hostile;
  switch (kind) {
    case 0: {
      const cut = truncate(src.bytes, ctx.rng.int(lastSignificant(src.bytes)));
      h = { op: 'in-place:truncate', type: 'file', path: src.path, bytes: cut, replaces: true, expect: ledger ? { kind: 'ledger' } : expectFor(['invalid']) };
      break;
    }
    case 1:
      h = { op: 'in-place:too-large', type: 'file', path: src.path, bytes: concat(src.bytes, new Uint8Array(MIB).fill(0x20)), replaces: true, expect: expectFor(['too_large']) };
      break;
    case 2:
      h = { op: 'in-place:dir', type: 'dir', path: src.path, children: [{ name: 'inner.json', bytes: src.bytes }], replaces: true, expect: expectFor(['invalid']) };
      break;
    case 3: {
      // The same bytes, but behind a link out of the folder: a link is never followed.
      const out = `inplace-${ctx.fresh()}`;
      ctx.outside.push({ path: out, bytes: src.bytes });
      h = { op: 'in-place:symlink-outside', type: 'symlink', path: src.path, target: { outside: out, absolute: ctx.rng.chance(0.5) }, replaces: true, expect: expectFor(['symlink']) };
      break;
    }
    case 4:
      h = { op: 'in-place:fifo', type: 'fifo', path: src.path, replaces: true, expect: expectFor(['invalid']) };
      break;
    default:
      h = { op: 'in-place:empty', type: 'file', path: src.path, bytes: new Uint8Array(0), replaces: true, expect: ledger ? { kind: 'ledger' } : expectFor(['invalid']) };
  }
  if (add(ctx, h) && orderDir) ctx.brokenDirs.add(orderDir);
}

/**
 * A folder of the layout itself (`retirements/`) replaced by a link out of the channel, a file or
 * a FIFO: never followed, one problem at its path; what it held counts as absent.
 */
function opLayoutDir(ctx: Ctx): void {
  const dir = 'retirements';
  if (ctx.out.some((h) => h.path === dir || h.path.startsWith(`${dir}/`))) return;
  const kind = ctx.rng.int(3);
  const out = `layout-${ctx.fresh()}`;
  let h: Hostile;
  if (kind === 0) {
    // The same retirement, and one more, behind the link.
    ctx.outside.push({ path: `${out}/old.ops.json`, bytes: ctx.byPath.get('retirements/old.ops.json') ?? new Uint8Array(0) });
    ctx.outside.push({ path: `${out}/fang.ops.json`, bytes: pretty(sign('retirement', { agent: 'fang', operator: 'ops', reason: ctx.marker, at: T }, 'ops')) });
    h = { op: 'in-place:layout-dir-symlink', type: 'symlink', path: dir, target: { outside: out, absolute: ctx.rng.chance(0.5) }, replaces: true, expect: { kind: 'problem', codes: ['symlink'] } };
  } else if (kind === 1) {
    h = { op: 'in-place:layout-dir-file', type: 'file', path: dir, bytes: ctx.byPath.get('retirements/old.ops.json') ?? new Uint8Array(0), replaces: true, expect: { kind: 'problem', codes: ['invalid'] } };
  } else {
    h = { op: 'in-place:layout-dir-fifo', type: 'fifo', path: dir, replaces: true, expect: { kind: 'problem', codes: ['invalid'] } };
  }
  ctx.taken.add(h.path);
  ctx.taken.add(`file:${h.path}`);
  ctx.out.push(h);
}

/**
 * A roster entry again under a file name in other case, its name written in lowercase, with
 * another key: folded away; the entry whose file name is already canonical is kept.
 */
function opCaseAgentFile(ctx: Ctx): void {
  const name = ctx.rng.pick(['fang', 'wisp', 'nebra', 'ops']);
  if (ctx.taken.has(`agents/${name}.json`)) return;
  const file = ctx.rng.chance(0.5) ? name.toUpperCase() : `${name[0]?.toUpperCase()}${name.slice(1)}`;
  add(ctx, {
    op: 'case:agent-file',
    type: 'file',
    path: `agents/${file}.json`,
    bytes: pretty({ name, role: 'operator', capabilities: [], public_key: keyOfName(`evil-${name}`) }),
    expect: { kind: 'benign', why: 'case variant of the file name folded into the canonical roster entry' },
  });
}

/** A valid record of a new writer that would change the card if it were read. */
function tempting(_ctx: Ctx, order: string, agent: string): Uint8Array {
  return pretty({ order_id: order, agent, claimed_at: '2026-11-20T08:00:00Z' });
}

/** Dot names, temp names, dot directories: never records, even with valid content. */
function opSkipName(ctx: Ctx): void {
  const order = ctx.rng.pick(ctx.base.orders);
  const w = ctx.fresh();
  const claim = tempting(ctx, order, w);
  const variants: [string, Uint8Array, string][] = [
    [`tasks/${order}/.claim.${w}.json`, claim, 'dot name'],
    [`tasks/${order}/.claim.${w}.json.a1b2c3d4e5f6.tmp`, claim, "claimboard's temp file"],
    [`tasks/${order}/.syncthing.claim.${w}.json.tmp`, claim, "Syncthing's temp file"],
    [`tasks/${order}/~syncthing~claim.${w}.json.tmp`, claim, "Syncthing's old temp file"],
    [`tasks/${order}/claim.${w}.json.tmp`, claim, '*.tmp'],
    [`tasks/${order}/claim.${w}.tmp`, claim, '*.tmp'],
    [`.syncthing.ledger.${w}.jsonl.tmp`, enc.encode('garbage'), "Syncthing's temp file"],
    [`.stignore`, enc.encode('(?d).DS_Store\n'), 'dot name'],
    [`.stfolder`, new Uint8Array(0), 'dot name'],
    [`.stversions/tasks/${order}/claim.${w}.json`, claim, 'dot directory'],
    [`.git/tasks/${order}/claim.${w}.json`, claim, 'dot directory'],
    [`tasks/.${w}/order.json`, ctx.byPath.get(`tasks/${order}/order.json`) ?? claim, 'dot directory'],
    [`tasks/${order}/.stversions/claim.${w}.json`, claim, 'dot directory'],
    [`agents/.${w}.json`, pretty({ name: w, role: 'operator', capabilities: [] }), 'dot name'],
    [`agents/${w}.json.tmp`, pretty({ name: w, role: 'operator', capabilities: [] }), '*.tmp'],
    [`.ledger.ops.jsonl.${w}.tmp`, enc.encode(''), "claimboard's temp file"],
  ];
  const [p, bytes, why] = ctx.rng.pick(variants);
  add(ctx, { op: `skip:${why}`, type: 'file', path: p, bytes, expect: { kind: 'skip', why } });
}

/** Names outside the layout (unknown kinds, case variants of a kind, too deep): not records. */
function opOutsideLayout(ctx: Ctx): void {
  const order = ctx.rng.pick(ctx.base.orders);
  const w = ctx.fresh();
  const claim = tempting(ctx, order, w);
  const holder = ctx.base.holders.get(order);
  const release = holder ? pretty(sign('release', { order_id: order, released: holder, releaser: 'ops', reason: 'requeued: hidden', at: T }, 'ops')) : claim;
  const variants: [string, Uint8Array][] = [
    [`tasks/${order}/Claim.${w}.json`, claim],
    [`tasks/${order}/CLAIM.${w}.json`, claim],
    [`tasks/${order}/claims.${w}.json`, claim],
    [`tasks/${order}/order.json.bak`, ctx.byPath.get(`tasks/${order}/order.json`) ?? claim],
    [`tasks/${order}/Order.json`, ctx.byPath.get(`tasks/${order}/order.json`) ?? claim],
    [`tasks/${order}/notes.txt`, enc.encode('hello')],
    [`tasks/${order}/${w}/claim.${w}.json`, claim],
    [`tasks/${order}/${w}/release.ops.${holder ?? 'x'}.json`, release],
    [`agents/${w}/fang.json`, pretty({ name: 'fang', role: 'operator', capabilities: [], public_key: keyOfName(w) })],
    [`Agents/${w}.json`, pretty({ name: w, role: 'operator', capabilities: [] })],
    [`README.md`, enc.encode('# not a record')],
    [`ledger.${w}.json`, enc.encode('{}')],
    [`${w}.jsonl`, enc.encode('{}')],
  ];
  const [p, bytes] = ctx.rng.pick(variants);
  add(ctx, { op: 'skip:outside the layout', type: 'file', path: p, bytes, expect: { kind: 'skip', why: 'outside the layout' } });
}

/** A base record's content under a tricky name (dots, slash look-alikes, unicode, newlines). */
function opTrickyName(ctx: Ctx): void {
  const src = randomBaseFile(ctx, (p) => p.startsWith('tasks/') && !p.endsWith('/order.json'));
  const parts = src.path.split('/');
  const base = parts[2] ?? '';
  const prefix = base.slice(0, base.indexOf('.'));
  const name = ctx.rng.pick(trickyNames(prefix, ctx.fresh()));
  const cls = classifyPath(`tasks/${parts[1]}/${name}`);
  const expect: Expect = cls.class === 'skip' ? { kind: 'skip', why: 'outside the layout' } : { kind: 'problem', codes: ['invalid', 'name_mismatch'] };
  add(ctx, { op: 'name:tricky', type: 'file', path: `tasks/${parts[1]}/${name}`, bytes: src.bytes, expect });
}

/** Order directories with tricky names (no readable order.json of their own). */
function opTrickyDir(ctx: Ctx): void {
  const w = ctx.fresh();
  const src = ctx.rng.pick(ctx.base.orders);
  const dirs = [`${w}..`, `${w}\u2215..`, ` ${w}`, `${w}%2e%2e`, `${w}\\..`, `${w}\u202e`, `${w}\n`, `${w}.json`, `${w}\u0301`];
  const dir = `tasks/${ctx.rng.pick(dirs)}`;
  ctx.brokenDirs.add(dir);
  const bytes = ctx.byPath.get(`tasks/${src}/order.json`) ?? new Uint8Array(0);
  add(ctx, { op: 'name:tricky-dir', type: 'file', path: `${dir}/order.json`, bytes, expect: { kind: 'problem', codes: ['invalid'], at: dir } });
}

/** A name that is not valid UTF-8 (overlong, lone surrogate, 0xff): reported, never read. */
function opBadUtf8Name(ctx: Ctx): void {
  const [, odd] = ctx.rng.pick(ODD_BYTES.filter(([n]) => n !== 'bom' && n !== 'nul' && n !== 'control'));
  const order = ctx.rng.pick(ctx.base.orders);
  const w = ctx.fresh();
  const lossy = (b: Uint8Array) => dec.decode(b);
  if (ctx.rng.chance(0.5)) {
    const raw = concat(enc.encode(`tasks/${order}/claim.${w}`), odd, enc.encode('.json'));
    add(ctx, { op: 'name:not-utf8', type: 'file', path: lossy(raw), rawPath: raw, bytes: tempting(ctx, order, w), expect: { kind: 'problem', codes: ['invalid'] } });
  } else {
    const rawDir = concat(enc.encode(`tasks/${w}`), odd);
    const raw = concat(rawDir, enc.encode('/order.json'));
    const dir = lossy(rawDir);
    ctx.brokenDirs.add(dir);
    add(ctx, { op: 'name:not-utf8-dir', type: 'file', path: lossy(raw), rawPath: raw, bytes: ctx.byPath.get(`tasks/${order}/order.json`) ?? new Uint8Array(0), expect: { kind: 'problem', codes: ['invalid'], at: dir } });
  }
}

/** Syncthing conflict copies: never records, one `sync_conflict` each. */
function opConflict(ctx: Ctx): void {
  const src = randomBaseFile(ctx);
  const parts = src.path.split('/');
  const base = parts[parts.length - 1] ?? '';
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : base;
  const ext = dot > 0 ? base.slice(dot) : '';
  const name = `${stem}.sync-conflict-2026${String(ctx.rng.range(1000, 1231))}-${String(ctx.rng.range(100000, 235959))}-${ctx.fresh().toUpperCase()}${ext}`;
  const p = [...parts.slice(0, -1), name].join('/');
  // Valid content that would change the card if it were read (a conflicting claim, an earlier release...).
  const bytes = ctx.rng.chance(0.5) ? src.bytes : mutateContent(ctx.rng, src.bytes).bytes;
  const big = bytes.length > MIB;
  add(ctx, { op: 'conflict', type: 'file', path: p, bytes, expect: { kind: 'problem', codes: [big ? 'too_large' : 'sync_conflict'] } });
}

/** Links: out of the folder (files and directories, relative and absolute), inside, dangling, loops. */
function opSymlink(ctx: Ctx): void {
  const w = ctx.fresh();
  const order = ctx.rng.pick(ctx.base.orders);
  const holder = ctx.base.holders.get(order) ?? 'fang';
  const abs = ctx.rng.chance(0.5);
  const kind = ctx.rng.int(10);
  switch (kind) {
    case 0: {
      // A record that would release the holder, if the link were followed.
      const out = `rel-${w}.json`;
      ctx.outside.push({ path: out, bytes: pretty(sign('release', { order_id: order, released: holder, releaser: 'ops', reason: `requeued: ${ctx.marker}`, at: T }, 'ops')) });
      const name = ctx.taken.has(`tasks/${order}/release.ops.${holder}.json`) || ctx.byPath.has(`tasks/${order}/release.ops.${holder}.json`) ? `release.ops.json` : `release.ops.${holder}.json`;
      if (ctx.byPath.has(`tasks/${order}/${name}`)) return;
      add(ctx, { op: 'symlink:outside-record', type: 'symlink', path: `tasks/${order}/${name}`, target: { outside: out, absolute: abs }, expect: { kind: 'problem', codes: ['symlink'] } });
      return;
    }
    case 1: {
      // A whole order directory out of the folder.
      const dir = `ord-${w}`;
      ctx.outside.push({ path: `${dir}/order.json`, bytes: pretty(sign('order', { id: w, project_id: ctx.marker, issued_by: 'ops', created_at: T, payload: { secret: ctx.marker } }, 'ops')) });
      ctx.outside.push({ path: `${dir}/claim.fang.json`, bytes: pretty({ order_id: w, agent: 'fang', claimed_at: T }) });
      add(ctx, { op: 'symlink:outside-order-dir', type: 'symlink', path: `tasks/${w}`, target: { outside: dir, absolute: abs }, expect: { kind: 'problem', codes: ['symlink'] } });
      return;
    }
    case 2: {
      // A directory out of the folder where a record file belongs.
      const dir = `dir-${w}`;
      ctx.outside.push({ path: `${dir}/claim.fang.json`, bytes: pretty({ order_id: order, agent: 'fang', claimed_at: T, note: ctx.marker }) });
      add(ctx, { op: 'symlink:outside-dir-as-record', type: 'symlink', path: `tasks/${order}/claim.${w}.json`, target: { outside: dir, absolute: abs }, expect: { kind: 'problem', codes: ['symlink'] } });
      return;
    }
    case 3: {
      const out = `agent-${w}.json`;
      ctx.outside.push({ path: out, bytes: pretty({ name: w, role: 'operator', capabilities: [ctx.marker], public_key: keyOfName(w) }) });
      add(ctx, { op: 'symlink:outside-agent', type: 'symlink', path: `agents/${w}.json`, target: { outside: out, absolute: abs }, expect: { kind: 'problem', codes: ['symlink'] } });
      return;
    }
    case 4: {
      const out = `ledger-${w}.jsonl`;
      ctx.outside.push({ path: out, bytes: enc.encode(signLedgerLine({ kind: 'note', actor: w, summary: ctx.marker, created_at: T }, null, w, (p) => keys.sign(seedOf(w), p)) + '\n') });
      add(ctx, { op: 'symlink:outside-ledger', type: 'symlink', path: `ledger.${w}.jsonl`, target: { outside: out, absolute: abs }, expect: { kind: 'problem', codes: ['symlink'] } });
      return;
    }
    case 5: {
      // A directory link under an order, with an unknown name: not in the layout, never descended.
      const dir = `sub-${w}`;
      ctx.outside.push({ path: `${dir}/release.ops.${holder}.json`, bytes: pretty(sign('release', { order_id: order, released: holder, releaser: 'ops', reason: ctx.marker, at: T }, 'ops')) });
      add(ctx, { op: 'symlink:outside-unknown-dir', type: 'symlink', path: `tasks/${order}/${w}`, target: { outside: dir, absolute: abs }, expect: { kind: 'skip', why: 'outside the layout' } });
      return;
    }
    case 6: {
      const sib = randomBaseFile(ctx, (p) => p.startsWith(`tasks/${order}/`));
      add(ctx, { op: 'symlink:inside', type: 'symlink', path: `tasks/${order}/claim.${w}.json`, target: { inside: sib.path }, expect: { kind: 'problem', codes: ['symlink'] } });
      return;
    }
    case 7:
      add(ctx, { op: 'symlink:dangling', type: 'symlink', path: `tasks/${order}/heartbeat.${w}.json`, target: { raw: `../../nowhere/${w}.json` }, expect: { kind: 'problem', codes: ['symlink'] } });
      return;
    case 8:
      add(ctx, { op: 'symlink:loop', type: 'symlink', path: `tasks/${order}/result.${w}.001.json`, target: { raw: `result.${w}.001.json` }, expect: { kind: 'problem', codes: ['symlink'] } });
      return;
    default: {
      const out = `dot-${w}.json`;
      ctx.outside.push({ path: out, bytes: enc.encode(ctx.marker) });
      add(ctx, { op: 'symlink:dot-name', type: 'symlink', path: `tasks/${order}/.${w}.json`, target: { outside: out, absolute: abs }, expect: { kind: 'skip', why: 'dot name' } });
    }
  }
}

/** Directories where files belong, files where directories belong, FIFOs. */
function opShape(ctx: Ctx): void {
  const w = ctx.fresh();
  const order = ctx.rng.pick(ctx.base.orders);
  const kind = ctx.rng.int(6);
  switch (kind) {
    case 0: {
      const inner = randomBaseFile(ctx, (p) => p.startsWith(`tasks/${order}/`));
      add(ctx, { op: 'shape:dir-as-record', type: 'dir', path: `tasks/${order}/claim.${w}.json`, children: [{ name: 'claim.fang.json', bytes: inner.bytes }], expect: { kind: 'problem', codes: ['invalid'] } });
      return;
    }
    case 1:
      add(ctx, { op: 'shape:dir-as-agent', type: 'dir', path: `agents/${w}.json`, children: [{ name: `${w}.json`, bytes: pretty({ name: w, role: 'operator', capabilities: [] }) }], expect: { kind: 'problem', codes: ['invalid'] } });
      return;
    case 2:
      add(ctx, { op: 'shape:dir-as-ledger', type: 'dir', path: `ledger.${w}.jsonl`, children: [], expect: { kind: 'problem', codes: ['invalid'] } });
      return;
    case 3:
      // A file where an order directory belongs, holding what would be a valid order.
      add(ctx, { op: 'shape:file-as-order-dir', type: 'file', path: `tasks/${w}`, bytes: pretty(sign('order', { id: w, project_id: 'p', issued_by: 'ops', created_at: T, payload: {} }, 'ops')), expect: { kind: 'problem', codes: ['invalid'] } });
      return;
    case 4:
      add(ctx, { op: 'shape:fifo', type: 'fifo', path: `tasks/${order}/heartbeat.${w}.json`, expect: { kind: 'problem', codes: ['invalid'] } });
      return;
    default: {
      // An order directory with no order.json but files that would be valid.
      const dir = `tasks/${w}`;
      ctx.brokenDirs.add(dir);
      add(ctx, { op: 'shape:order-dir-without-order', type: 'file', path: `${dir}/claim.fang.json`, bytes: pretty({ order_id: w, agent: 'fang', claimed_at: T }), expect: { kind: 'problem', codes: ['invalid'], at: dir } });
    }
  }
}

/** Correctly named records whose signature does not hold: from the wrong key, no one, a stranger, an unauthorized signer. */
function opForge(ctx: Ctx): void {
  const rng = ctx.rng;
  const withHolder = ctx.base.orders.filter((o) => ctx.base.holders.has(o) && o !== 'o-offered');
  const order = rng.pick(withHolder);
  const holder = ctx.base.holders.get(order) ?? 'fang';
  const free = (p: string) => !ctx.byPath.has(p) && !ctx.taken.has(p);
  const kind = rng.int(11);
  const other = rng.pick(['fang', 'wisp', 'nebra', 'ka.ro'].filter((n) => n !== holder));
  const put = (op: string, p: string, v: unknown, codes: ProblemCode[], extra: Partial<HostileCommon> = {}) => {
    if (!free(p)) return;
    add(ctx, { op: `forge:${op}`, type: 'file', path: p, bytes: pretty(v), expect: { kind: 'problem', codes }, ...extra });
  };
  const release = { order_id: order, released: holder, releaser: 'ops', reason: 'requeued: forged', at: T };
  const relPath = free(`tasks/${order}/release.ops.${holder}.json`) ? `tasks/${order}/release.ops.${holder}.json` : `tasks/${order}/release.ops.json`;
  switch (kind) {
    case 0:
      return put('wrong-key', relPath, sign('release', release, 'ops', holder), ['invalid_signature']);
    case 1:
      return put('unsigned', relPath, release, ['unsigned']);
    case 2: {
      const g = ctx.fresh();
      return put('unknown-signer', `tasks/${order}/release.${g}.${holder}.json`, sign('release', { ...release, releaser: g }, g), ['unknown_signer']);
    }
    case 3:
      return put('unauthorized', relPath, sign('release', release, other), ['unauthorized_signer']);
    case 4: {
      // A worker releasing another's claim: neither the released agent nor an operator.
      const w = rng.pick(['wisp', 'nebra', 'fang'].filter((n) => n !== holder));
      return put('worker-release', `tasks/${order}/release.${w}.${holder}.json`, sign('release', { ...release, releaser: w }, w), ['unauthorized_signer']);
    }
    case 5: {
      const rev = (ctx.base.latest.get(order) ?? 0) + 1;
      return put(
        'result-wrong-key',
        `tasks/${order}/result.${holder}.${revisionComponent(rev)}.json`,
        sign('result', { order_id: order, agent: holder, revision: rev, submitted_at: T, payload: { forged: true } }, holder, other),
        ['invalid_signature'],
      );
    }
    case 6: {
      // A review naming the operator as reviewer, signed (validly) by a worker.
      const rev = ctx.base.latest.get(order) ?? 1;
      const by = rng.pick(['fang', 'wisp', 'nebra']);
      return put('review-unauthorized', `tasks/${order}/review.${revisionComponent(rev)}.json`, sign('review', { order_id: order, revision: rev, reviewer: 'ops', reviewed_at: T, accepted: rng.chance(0.5) }, by), ['unauthorized_signer']);
    }
    case 7: {
      // A worker's reopen or ack: only operators decide.
      const w = rng.pick(['fang', 'wisp', 'nebra']);
      const rev = ctx.base.latest.get(order) ?? 1;
      return rng.chance(0.5)
        ? put('worker-reopen', `tasks/${order}/reopen.${w}.json`, sign('reopen', { order_id: order, operator: w, target: `result:${rev}`, reason: 'mine', at: T }, w), ['unauthorized_signer'])
        : put('worker-ack', `tasks/${order}/ack.${w}.json`, sign('ack', { order_id: order, operator: w, target: 'giveup:00', note: 'mine', at: T }, w), ['unauthorized_signer']);
    }
    case 8: {
      // Valid signature fields pasted onto changed content; garbage signatures.
      const signed = sign('giveup', { order_id: order, agent: holder, run: 'r1', reason: 'tired', attempts: 1, at: T }, holder);
      const variants: Record<string, unknown>[] = [
        { ...signed, reason: 'changed after signing' },
        { ...signed, signature: 'zz'.repeat(64) },
        { ...signed, signature: String(signed.signature).slice(0, 126) },
        { ...signed, signature: '00'.repeat(64) },
        { ...signed, signature: String(signed.signature) + '00' },
      ];
      return put('tampered', `tasks/${order}/giveup.${holder}.json`, rng.pick(variants), ['invalid_signature']);
    }
    case 9: {
      // An identity retired by a worker: not an operator.
      const w = rng.pick(['wisp', 'nebra', 'fang'].filter((n) => n !== holder));
      const p = `retirements/${holder}.${w}.json`;
      return put('worker-retirement', p, sign('retirement', { agent: holder, operator: w, reason: 'forged', at: T }, w), ['unauthorized_signer']);
    }
    default: {
      // A new order signed with the wrong key: it exists, flagged bad_record.
      const id = ctx.fresh();
      return put('order-wrong-key', `tasks/${id}/order.json`, sign('order', { id, project_id: 'p', issued_by: 'ops', created_at: T, payload: {} }, 'ops', 'fang'), ['invalid_signature'], { extraCard: id });
    }
  }
}

/** Broken ledger files: wrong signer, broken chain, a line edited. */
function opLedger(ctx: Ctx): void {
  const rng = ctx.rng;
  const w = ctx.fresh();
  const lines: string[] = [];
  const who = rng.pick(['ops', 'fang', 'wisp']);
  for (let i = 0; i < rng.range(1, 4); i++) {
    lines.push(signLedgerLine({ kind: 'note', actor: who, summary: `n${i}`, created_at: T }, lines[lines.length - 1] ?? null, who, (p) => keys.sign(seedOf(who), p)));
  }
  const kind = rng.int(3);
  if (kind === 1 && lines.length > 1) lines.splice(0, 1); // chain broken at line 1
  if (kind === 2) lines[lines.length - 1] = (lines[lines.length - 1] ?? '').replace(/"summary":"n(\d)"/, '"summary":"edited"');
  const p = rng.chance(0.2) && !ctx.taken.has('ledger.jsonl') ? 'ledger.jsonl' : `ledger.${rng.chance(0.5) ? w : rng.pick(['wisp', 'nebra'].filter((n) => n !== who))}.jsonl`;
  add(ctx, { op: 'ledger:broken', type: 'file', path: p, bytes: enc.encode(lines.join('\n') + '\n'), expect: { kind: 'ledger' } });
}

/** Case variants: an order directory again in other case, a roster name again in other case. */
function opCase(ctx: Ctx): void {
  if (ctx.rng.chance(0.5)) {
    const order = ctx.rng.pick(ctx.base.orders);
    const variant = ctx.rng.chance(0.5) ? order.toUpperCase() : order[0]?.toUpperCase() + order.slice(1);
    const dir = `tasks/${variant}`;
    // The whole folder again under the case variant, plus a release that would move the card.
    const files = ctx.base.files.filter((f) => f.path.startsWith(`tasks/${order}/`));
    let first = true;
    for (const f of files) {
      const p = `${dir}/${f.path.slice(`tasks/${order}/`.length)}`;
      add(ctx, { op: 'case:order-dir', type: 'file', path: p, bytes: f.bytes, expect: { kind: 'problem', codes: ['invalid'], at: dir } });
      first = false;
    }
    const holder = ctx.base.holders.get(order);
    if (holder && !first) {
      add(ctx, {
        op: 'case:order-dir',
        type: 'file',
        path: `${dir}/release.ops.${holder}.json`,
        bytes: pretty(sign('release', { order_id: order, released: holder, releaser: 'ops', reason: 'requeued: case variant', at: T }, 'ops')),
        expect: { kind: 'problem', codes: ['invalid'], at: dir },
      });
    }
    ctx.brokenDirs.add(dir);
    return;
  }
  const name = ctx.rng.pick(['fang', 'wisp', 'nebra', 'ops']);
  if (ctx.taken.has(`agents/${name}.json`)) return; // replaced in place: the variant would be the entry
  // The name written in upper case with another key: folded away, the lowercase entry is kept.
  add(ctx, {
    op: 'case:agent',
    type: 'file',
    path: `agents/${name.toUpperCase()}.json`,
    bytes: pretty({ name: name.toUpperCase(), role: 'operator', capabilities: [], public_key: keyOfName(`evil-${name}`) }),
    expect: { kind: 'benign', why: 'case variant folded into the lowercase roster entry' },
  });
}

const OPS: readonly [number, (ctx: Ctx) => void][] = [
  [30, opContent],
  [8, opInPlace],
  [8, opSkipName],
  [6, opOutsideLayout],
  [6, opTrickyName],
  [3, opTrickyDir],
  [3, opBadUtf8Name],
  [6, opConflict],
  [10, opSymlink],
  [6, opShape],
  [10, opForge],
  [3, opLedger],
  [2, opCase],
];
/**
 * Operators added later draw from their own stream (seeded from the round's seed), so that
 * adding one does not change what earlier seeds plan: fixed-seed regressions stay meaningful.
 */
const LATER_OPS: readonly [number, (ctx: Ctx) => void][] = [
  [0.04, opLayoutDir],
  [0.04, opCaseAgentFile],
];
const TOTAL_WEIGHT = OPS.reduce((s, [w]) => s + w, 0);

/**
 * A hostile plan for one round: about `count` entries placed among the base channel's files.
 * Deterministic for `seed`.
 */
export function planRound(seed: number, count: number, with_: Keys = NACL_KEYS): Plan {
  const saved = keys;
  keys = with_;
  try {
    return plan(seed, count);
  } finally {
    keys = saved;
  }
}

function plan(seed: number, count: number): Plan {
  const rng = new Rng(seed);
  const base = baseChannel();
  const byPath = new Map(base.files.map((f) => [f.path, f.bytes]));
  const taken = new Set<string>();
  for (const f of base.files) {
    const parts = f.path.split('/');
    taken.add(`file:${f.path}`);
    for (let i = 1; i < parts.length; i++) taken.add(`dir:${parts.slice(0, i).join('/')}`);
  }
  let n = 0;
  const marker = `OUTSIDE-MARKER-${seed.toString(36)}-${sha256HexOfText(String(seed)).slice(0, 8)}`;
  const ctx: Ctx = {
    rng,
    base,
    byPath,
    taken,
    out: [],
    outside: [],
    marker,
    brokenDirs: new Set(),
    fresh: () => `fz${seed.toString(36)}x${(n++).toString(36)}`,
  };
  // Base paths may be replaced in place: only the hostile set guards against double use.
  for (const f of base.files) taken.delete(`file:${f.path}`);
  let guard = 0;
  while (ctx.out.length < count && guard++ < count * 20) {
    let r = rng.int(TOTAL_WEIGHT);
    for (const [w, op] of OPS) {
      if (r < w) {
        op(ctx);
        break;
      }
      r -= w;
    }
  }
  const side = new Rng(seed ^ 0x5bd1e995);
  for (const [p, op] of LATER_OPS) if (side.chance(p)) op({ ...ctx, rng: side });
  // Entries inside a directory that is not an order (no readable order.json of its own) are
  // covered by that directory's one `invalid` problem; skipped names stay skipped.
  // A roster entry replaced in place takes its signer out of the roster: what it signed is
  // then `unknown_signer` first.
  const rosterHit = ctx.out.some((h) => h.replaces && h.path.startsWith('agents/'));
  // A case-variant copy of an order whose own order.json was replaced would rightly hold the order.
  const brokenOrders = new Set(ctx.out.filter((h) => h.replaces && h.path.endsWith('/order.json')).map((h) => h.path.split('/')[1]));
  const kept = ctx.out.filter((h) => !(h.op === 'case:order-dir' && brokenOrders.has(h.path.split('/')[1]?.toLowerCase())));
  const hostile = kept.map((h): Hostile => {
    if (h.expect.kind === 'skip') return h;
    if (rosterHit && h.expect.kind === 'problem' && h.expect.codes.some((c) => SIGNATURE_CODES.has(c)) && !h.expect.codes.includes('unknown_signer')) {
      h = { ...h, expect: { ...h.expect, codes: [...h.expect.codes, 'unknown_signer'] } };
    }
    const parts = h.path.split('/');
    if (parts[0] !== 'tasks' || parts.length < 3) return h;
    const dir = `tasks/${parts[1]}`;
    if (!ctx.brokenDirs.has(dir)) return h;
    return { ...h, expect: { kind: 'problem', codes: ['invalid'], at: dir } };
  });
  return { hostile, outside: ctx.outside, marker };
}

/** Problem codes an expectation allows. */
export function allowedCodes(e: Expect): readonly ProblemCode[] {
  return e.kind === 'problem' ? e.codes : e.kind === 'ledger' ? ['ledger_broken'] : [];
}
