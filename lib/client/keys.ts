/**
 * The operator's key in the browser (docs/channel-format.md: actions are signed in the operator's
 * browser; the secret key never reaches the server). Pure parts: what a seed is, the name a key
 * file gives, where the key is kept, and whether actions may be offered with it. The React
 * side is lib/client/operator.ts; the panel is components/actions/KeyPanel.tsx.
 *
 * The seed is kept in `sessionStorage` (gone when the tab closes) unless the operator ticks
 * "remember on this device" (`localStorage`). It is never put in a URL, a log, or a request
 * body: only signatures made with it are sent.
 */
import { naclPublicKey } from '@/lib/ledger/nacl-verify';
import { canonicalName, isSafeComponent } from '@/lib/ledger/names';

/** An operator's key as the browser keeps it: the name it signs as and its 32-byte seed (64 lowercase hex). */
export interface OperatorKey {
  readonly name: string;
  readonly seed: string;
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/**
 * A seed as pasted or read from a key file: 64 hex digits (ferryman's key files hold the hex
 * seed, maybe with a trailing newline). Surrounding whitespace is dropped and the hex is
 * lowercased; anything else is refused with a reason that never repeats the text itself.
 */
export function parseSeed(text: string): Parsed<string> {
  const t = text.trim();
  if (t.length === 0) return { ok: false, reason: 'paste the key: a seed is 64 hex digits (0-9, a-f)' };
  if (!/^[0-9a-fA-F]*$/.test(t)) {
    return { ok: false, reason: 'a seed is 64 hex digits (0-9, a-f); this text has other characters (is it a public key file, or JSON?)' };
  }
  if (t.length !== 64) {
    const hint = t.length === 128 ? ' (128 digits looks like a signature or a full secret key; use the 32-byte seed)' : '';
    return { ok: false, reason: `a seed is 64 hex digits; this has ${t.length}${hint}` };
  }
  return { ok: true, value: t.toLowerCase() };
}

/** An operator name typed or taken from a file name: a ferryman safe component, in canonical form. */
export function parseOperatorName(text: string): Parsed<string> {
  const n = canonicalName(text);
  if (n.length === 0) return { ok: false, reason: 'whose key is it? type the operator name (e.g. ops)' };
  if (!isSafeComponent(n)) return { ok: false, reason: `"${n}" is not a name: only letters, digits, ".", "-" and "_"` };
  return { ok: true, value: n };
}

/**
 * The operator name a key file gives by ferryman's convention: `<name>.key` (e.g. `ops.key`
 * signs as ops). Null when the file is not named that way (then the page asks for the name).
 */
export function nameFromKeyFileName(fileName: string): string | null {
  // A path may come with it (some browsers, drag and drop): keep the last component.
  const base = fileName.split(/[\\/]/).pop() ?? '';
  if (!/\.key$/i.test(base)) return null;
  const stem = base.slice(0, -'.key'.length);
  const n = parseOperatorName(stem);
  return n.ok ? n.value : null;
}

// ---- storage --------------------------------------------------------------------------

/** Where the key is kept: this tab only (default) or this device (remember). */
export type KeyStorage = 'session' | 'local';

/** `localStorage` only when the operator asked to be remembered on this device. */
export const storageFor = (remember: boolean): KeyStorage => (remember ? 'local' : 'session');

/** The part of the Web Storage API used here (so tests can pass a Map-backed fake). */
export type StorageLike = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
export interface KeyStores {
  readonly session: StorageLike;
  readonly local: StorageLike;
}

export const KEY_STORAGE_ITEM = 'claimboard.operator-key';

/** Keeps the key in the chosen storage and removes it from the other (one place at a time). */
export function saveKey(stores: KeyStores, key: OperatorKey, remember: boolean): KeyStorage {
  const where = storageFor(remember);
  const other: KeyStorage = where === 'local' ? 'session' : 'local';
  stores[where].setItem(KEY_STORAGE_ITEM, JSON.stringify({ name: key.name, seed: key.seed }));
  stores[other].removeItem(KEY_STORAGE_ITEM);
  return where;
}

/** The kept key (this tab's first, then this device's), or null; a malformed entry counts as none. */
export function loadKey(stores: KeyStores): { key: OperatorKey; storage: KeyStorage } | null {
  for (const where of ['session', 'local'] as const) {
    let raw: string | null;
    try {
      raw = stores[where].getItem(KEY_STORAGE_ITEM);
    } catch {
      raw = null;
    }
    if (!raw) continue;
    try {
      const v = JSON.parse(raw) as unknown;
      if (!v || typeof v !== 'object') continue;
      const { name, seed } = v as { name?: unknown; seed?: unknown };
      if (typeof name !== 'string' || typeof seed !== 'string') continue;
      const n = parseOperatorName(name);
      const s = parseSeed(seed);
      if (n.ok && s.ok) return { key: { name: n.value, seed: s.value }, storage: where };
    } catch {
      // not JSON: ignore it
    }
  }
  return null;
}

/** "Forget key": removes it from both storages at once. */
export function forgetKey(stores: KeyStores): void {
  for (const where of ['session', 'local'] as const) {
    try {
      stores[where].removeItem(KEY_STORAGE_ITEM);
    } catch {
      // storage unavailable: nothing kept there
    }
  }
}

// ---- may actions be offered? ------------------------------------------------------------

/** GET /api/operators/:name (app/api/operators/[name]/route.ts). */
export interface OperatorInfo {
  readonly name: string;
  readonly in_roster: boolean;
  readonly is_operator: boolean;
  readonly public_key: string | null;
  readonly ledger_prev: string;
  readonly ledger_problem?: string | null;
  /** The channel the next act must be signed for, or null (`channel_problem` says why). */
  readonly channel?: string | null;
  readonly channel_problem?: string | null;
  /** The next act names the channel: it writes claimboard.channel.json too. */
  readonly channel_new?: boolean;
  readonly actions_enabled: boolean;
  readonly demo_key_available: boolean;
}

/** Why actions are (not) offered with this key. */
export type KeyGateCode = 'no_key' | 'checking' | 'unreachable' | 'read_only' | 'not_in_roster' | 'no_pinned_key' | 'not_operator' | 'key_mismatch' | 'ok';

export interface KeyGate {
  readonly ok: boolean;
  readonly code: KeyGateCode;
  /** One sentence for the panel, the nav and disabled buttons' tooltips. */
  readonly message: string;
}

/** The public key of a seed, lowercase hex (null for a bad seed). */
export function publicKeyOf(seed: string): string | null {
  try {
    return naclPublicKey(seed);
  } catch {
    return null;
  }
}

/**
 * Whether actions may be offered: signed in, the server accepts actions,
 * the name is in the roster and an operator of this channel, and the key's public half is the
 * name's pinned key (else the server would refuse every signature). `publicKey` is
 * `publicKeyOf(key.seed)`, passed in so a render does not derive it again.
 */
export function keyGate(key: OperatorKey | null, publicKey: string | null, info: OperatorInfo | null | 'error'): KeyGate {
  if (!key) return { ok: false, code: 'no_key', message: 'sign in as an operator to act: no operator key in this browser' };
  if (info === null) return { ok: false, code: 'checking', message: `checking ${key.name} against the roster…` };
  if (info === 'error') return { ok: false, code: 'unreachable', message: `could not ask the server about ${key.name}: actions are not offered until it answers` };
  if (!info.actions_enabled) return { ok: false, code: 'read_only', message: 'read-only dashboard: this server accepts no operator actions' };
  if (!info.in_roster) return { ok: false, code: 'not_in_roster', message: `${key.name} is not in the roster of this channel` };
  if (!info.is_operator) return { ok: false, code: 'not_operator', message: `${key.name} is not an operator of this channel` };
  if (!info.public_key) return { ok: false, code: 'no_pinned_key', message: `${key.name} has no key in the roster: the server cannot verify its signatures` };
  if (!publicKey || publicKey !== info.public_key.toLowerCase()) {
    return { ok: false, code: 'key_mismatch', message: `this key is not ${key.name}'s pinned key: the server would refuse its signatures` };
  }
  return { ok: true, code: 'ok', message: `signed in as ${key.name} — operator of this channel ✓` };
}

/** One served channel of a hub and what the server says there of the key's name (null: asking; 'error': no answer). */
export interface ChannelInfo {
  readonly channel: string;
  readonly info: OperatorInfo | null | 'error';
}

/**
 * The key's gate over a hub's channels, for the nav and the key panel (an act is gated in its
 * own channel by keyGate): which channels it is an operator of, and, when none, why not in each.
 * Actions on a card are offered by its channel's gate alone.
 */
export function hubKeyGate(key: OperatorKey | null, publicKey: string | null, each: readonly ChannelInfo[]): KeyGate {
  if (!key) return keyGate(null, publicKey, null);
  const gates = each.map((c) => ({ channel: c.channel, gate: keyGate(key, publicKey, c.info) }));
  if (gates.length === 0 || gates.some((g) => g.gate.code === 'checking')) return { ok: false, code: 'checking', message: `checking ${key.name} against the roster of each channel…` };
  const ok = gates.filter((g) => g.gate.ok).map((g) => g.channel);
  const not = gates.filter((g) => !g.gate.ok);
  if (ok.length > 0) {
    return { ok: true, code: 'ok', message: `signed in as ${key.name} — operator of ${ok.join(', ')} ✓${not.length > 0 ? `; not of ${not.map((g) => g.channel).join(', ')}` : ''}` };
  }
  const first = not[0] as { gate: KeyGate };
  return { ok: false, code: first.gate.code, message: `${key.name} is an operator of none of the ${gates.length} channels served here (${not.map((g) => `${g.channel}: ${g.gate.message}`).join('; ')})` };
}
