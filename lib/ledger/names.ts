/**
 * Names and file-kind rules of the channel layout.
 *
 * Pure: works on relative paths ("tasks/t1/claim.fang.json", always `/`-separated), never on
 * the filesystem.
 */

/** Largest file claimboard parses, in bytes. */
export const MAX_RECORD_BYTES = 1024 * 1024;

/**
 * Ferryman's "safe component": non-empty, not `.` or `..`, only ASCII
 * letters, digits, `.`, `-`, `_`.
 */
export function isSafeComponent(name: string): boolean {
  if (name.length === 0 || name === '.' || name === '..') return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const ok =
      (c >= 48 && c <= 57) || // 0-9
      (c >= 65 && c <= 90) || // A-Z
      (c >= 97 && c <= 122) || // a-z
      c === 46 || // .
      c === 45 || // -
      c === 95; // _
    if (!ok) return false;
  }
  return true;
}

/** What a channel name may be, in words (a refusal's). */
export const CHANNEL_NAME_RULE = 'letters, digits, ".", "-" and "_" only';

/**
 * Whether `name` may name a channel of a hub: an agent name's rule (`isSafeComponent`), so that
 * it can stand in a query (`channel:<name>`), a URL, a metrics label and a file name unquoted;
 * compared, like agent names, in its canonical (lowercase) form.
 */
export function isChannelName(name: string): boolean {
  return isSafeComponent(name);
}

const HAS_UPPER = /[A-Z]/;

/**
 * The canonical form of a name: ferryman folds with trim + ASCII lowercase.
 * Non-ASCII letters are left alone (they can never be part of a safe component anyway).
 */
export function canonicalName(name: string): string {
  const t = name.trim();
  // Most names are canonical already: no replace (and no callback per letter) for them.
  return HAS_UPPER.test(t) ? t.replace(/[A-Z]/g, (c) => c.toLowerCase()) : t;
}

/** Two names are the same identity when their canonical forms are equal. */
export function sameName(a: string, b: string): boolean {
  return canonicalName(a) === canonicalName(b);
}

/** Record kinds that live in `tasks/<order_id>/`. */
export const TASK_RECORD_KINDS = [
  'order',
  'claim',
  'heartbeat',
  'result',
  'review',
  'recommendation',
  'release',
  'interrupt',
  'giveup',
  'reopen',
  'ack',
  'supersede',
  'interrupt_ack',
] as const;
export type TaskRecordKind = (typeof TASK_RECORD_KINDS)[number];

/**
 * Every record kind claimboard reads. `interrupt_ack`, `master` and `grant` are
 * what the real ferry writes beside the claim records (docs/channel-format.md).
 */
export const RECORD_KINDS = [...TASK_RECORD_KINDS, 'agent', 'retirement', 'ledger', 'master', 'grant'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/** The task kinds named by their file name's first word; an interrupt acknowledgement shares `interrupt.`. */
const TASK_PREFIXES: ReadonlySet<string> = new Set<TaskRecordKind>(TASK_RECORD_KINDS.filter((k) => k !== 'interrupt_ack'));
const isTaskPrefix = (prefix: string): prefix is TaskRecordKind => TASK_PREFIXES.has(prefix);

/**
 * `interrupt.<issued_by>.<agent>.acked.json`: ferry's acknowledgement of an interrupt
 * (C/interrupt.rs `ack_path`). Shares the interrupt prefix; never an interrupt itself.
 */
export function isInterruptAckName(base: string): boolean {
  return base.startsWith('interrupt.') && base.endsWith('.acked.json');
}

/**
 * Where a path sits in the layout, decided from the path alone.
 *
 * - `skip`: not a record (dot files and dirs, Syncthing and other temp files, `.git/`, and
 *   anything outside the layout, such as files of kinds ferryman has and claimboard does not read).
 * - `conflict`: a Syncthing conflict copy, never read; a `sync_conflict` problem on `orderId`
 *   (or on the channel when `orderId` is null).
 * - `record`: a file to read as `kind`; `orderId` is its directory's name for task records.
 * - `task_dir_file`: a plain file directly at `tasks/<name>`, where a directory belongs.
 * - `layout_dir`: `agents`, `retirements` or `tasks` at the root: must be a directory (a symlink
 *   or a file there is a problem, never followed).
 */
export type PathClass =
  | { readonly class: 'skip' }
  | { readonly class: 'conflict'; readonly orderId: string | null }
  | { readonly class: 'record'; readonly kind: RecordKind; readonly orderId: string | null }
  | { readonly class: 'task_dir_file' }
  | { readonly class: 'layout_dir' };

/** True for names Syncthing and writers use for files that are not records. */
export function isNotARecordName(base: string): boolean {
  return (
    base.startsWith('.') ||
    (base.startsWith('~syncthing~') && base.endsWith('.tmp')) ||
    base.endsWith('.tmp')
  );
}

/**
 * True for a Syncthing conflict copy name: `<stem>.sync-conflict-<date>-<time>-<device>[.<ext>]`
 *.
 */
export function isSyncConflictName(base: string): boolean {
  return /\.sync-conflict-\d{8}-\d{6}-[A-Za-z0-9]+(\.|$)/.test(base);
}

/**
 * Classifies a channel-relative path. `isDir` says whether the path is a
 * directory (used for `tasks/<id>` itself, which is classified by the caller).
 */
export function classifyPath(rel: string): PathClass {
  const parts = rel.split('/');
  for (const p of parts) if (isNotARecordName(p)) return { class: 'skip' };
  const base = parts[parts.length - 1] ?? '';
  const top = parts[0];
  const orderId = top === 'tasks' && parts.length >= 3 ? (parts[1] ?? null) : null;
  if (isSyncConflictName(base)) {
    // A conflict copy directly in an order's folder belongs to that order; elsewhere, to the channel.
    return { class: 'conflict', orderId: parts.length === 3 ? orderId : null };
  }
  if (parts.length === 1) {
    if (base === 'agents' || base === 'retirements' || base === 'tasks') return { class: 'layout_dir' };
    if (base === 'master.json') return { class: 'record', kind: 'master', orderId: null };
    if (base === 'ledger.jsonl' || (base.startsWith('ledger.') && base.endsWith('.jsonl'))) {
      return { class: 'record', kind: 'ledger', orderId: null };
    }
    return { class: 'skip' };
  }
  if (parts.length === 2) {
    if (top === 'agents' && base.endsWith('.json')) return { class: 'record', kind: 'agent', orderId: null };
    if (top === 'retirements') return { class: 'record', kind: 'retirement', orderId: null };
    // ferry's member_grants reads only `*.json` there.
    if (top === 'grants' && base.endsWith('.json')) return { class: 'record', kind: 'grant', orderId: null };
    if (top === 'tasks') return { class: 'task_dir_file' };
    return { class: 'skip' };
  }
  if (parts.length === 3 && top === 'tasks') {
    if (isInterruptAckName(base)) return { class: 'record', kind: 'interrupt_ack', orderId };
    const dot = base.indexOf('.');
    const prefix = dot < 0 ? base : base.slice(0, dot);
    if (base === 'order.json') return { class: 'record', kind: 'order', orderId };
    if (prefix !== 'order' && isTaskPrefix(prefix)) return { class: 'record', kind: prefix, orderId };
    // `order.<anything>` other than order.json, unknown prefixes: not ours to read.
    return { class: 'skip' };
  }
  return { class: 'skip' };
}

/** Zero-padded 3-digit revision as ferryman writes it in file names (`{rev:03}`). */
export function revisionComponent(revision: number): string {
  return String(revision).padStart(3, '0');
}

/**
 * True when a file's base name equals one of the names computed from its record's fields,
 * compared case-insensitively.
 */
export function fileNameMatches(base: string, expected: readonly string[]): boolean {
  const folded = canonicalName(base);
  return expected.some((e) => canonicalName(e) === folded);
}
