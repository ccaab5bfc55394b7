/**
 * ferryman's canonical JSON and `payload_digest`, over the lossless nodes of json.ts.
 *
 * Pure and framework-free: runs in the browser too.
 *
 * - `canonicalJson` reproduces serde_json's compact serialization of a `serde_json::Value`
 *   (keys sorted by UTF-8 bytes, integers exact, floats laid out as ryu does).
 * - `payloadDigest` is D(x): the lowercase hex SHA-256 of that serialization.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { JsonNode } from './json';

const utf8Encoder = new TextEncoder();

/**
 * Compares two strings by Unicode code point (= UTF-8 byte order), not by UTF-16 code unit:
 * at the first differing unit, units U+E000..U+FFFF sort before surrogates (which encode
 * code points above U+FFFF).
 */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x - y;
    }
  }
  return a.length - b.length;
}

function compareEntries(a: readonly [string, JsonNode], b: readonly [string, JsonNode]): number {
  return compareCodePoints(a[0], b[0]);
}

const U64_MAX = 18446744073709551615n;
const I64_MIN = -9223372036854775808n;

/** True when `text` is a JSON integer token (`-?(0|[1-9][0-9]*)`); returns its digit count or -1. */
function integerDigits(text: string): number {
  const n = text.length;
  let i = text.charCodeAt(0) === 0x2d ? 1 : 0;
  const first = i;
  if (i >= n) return -1;
  if (text.charCodeAt(i) === 0x30 && n - i > 1) return -1;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return -1;
  }
  return n - first;
}

/**
 * ryu's `format64` layout of a finite f64 (what serde_json prints for a float).
 * `toExponential()` without argument yields the shortest round-trip digits.
 */
function formatFloat(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const neg = x < 0;
  const e = (neg ? -x : x).toExponential(); // "d.ddde+N" / "de-N"
  const ePos = e.indexOf('e');
  const mant = e.slice(0, ePos);
  const digits = mant.length > 1 ? mant[0] + mant.slice(2) : mant;
  const length = digits.length;
  const kk = Number(e.slice(ePos + 1)) + 1; // value = 0.digits × 10^kk
  const k = kk - length; // exponent of the last digit
  let out: string;
  if (0 <= k && kk <= 16) {
    out = digits + '0'.repeat(k) + '.0';
  } else if (0 < kk && kk <= 16) {
    out = digits.slice(0, kk) + '.' + digits.slice(kk);
  } else if (-5 < kk && kk <= 0) {
    out = '0.' + '0'.repeat(-kk) + digits;
  } else if (length === 1) {
    out = digits + 'e' + (kk - 1);
  } else {
    out = digits[0] + '.' + digits.slice(1) + 'e' + (kk - 1);
  }
  return neg ? '-' + out : out;
}

/** serde_json's rendering of one number token (integer exactly when it fits i64/u64, else ryu). */
function formatNumber(text: string): string {
  const nd = integerDigits(text);
  if (nd > 0 && text !== '-0') {
    // 18 digits or fewer always fit i64 (and u64); 19–20 need an exact check.
    if (nd <= 18) return text;
    if (nd <= 20) {
      const v = BigInt(text);
      if (v <= U64_MAX && v >= I64_MIN) return text;
    }
  }
  const x = Number(text);
  if (!Number.isFinite(x)) throw new RangeError(`number out of f64 range: ${text}`);
  return formatFloat(x);
}

function writeCanonical(node: JsonNode): string {
  switch (node.t) {
    case 'null':
      return 'null';
    case 'bool':
      return node.v ? 'true' : 'false';
    case 'num':
      return formatNumber(node.text);
    case 'str':
      return JSON.stringify(node.v);
    case 'arr': {
      const items = node.items;
      let out = '[';
      for (let i = 0; i < items.length; i++) {
        if (i > 0) out += ',';
        out += writeCanonical(items[i] as JsonNode);
      }
      return out + ']';
    }
    case 'obj': {
      const entries = node.entries.length > 1 ? node.entries.slice().sort(compareEntries) : node.entries;
      let out = '{';
      for (let i = 0; i < entries.length; i++) {
        const [k, v] = entries[i] as readonly [string, JsonNode];
        if (i > 0) out += ',';
        out += JSON.stringify(k) + ':' + writeCanonical(v);
      }
      return out + '}';
    }
  }
}

/**
 * serde_json's compact serialization of a node as a `serde_json::Value` (docs/channel-format.md, D(x)):
 * no whitespace; object keys sorted by UTF-8 bytes (code point order); strings escaped as
 * `JSON.stringify` does (same as serde_json: `"`, `\`, and controls < 0x20 only); an integer
 * token that fits u64 or i64 printed exactly (`-0` is the float `-0.0`); every other number
 * parsed to f64 and laid out as ryu does (`100.0`, `1e21`, `1.5e-7`, `0.00001`).
 * Throws RangeError only when a number token is not a finite f64 (e.g. `1e400`), which cannot
 * happen for a node from `parseStrictJson` / `parseStrictJsonText`.
 */
export function canonicalJson(node: JsonNode): string {
  return writeCanonical(node);
}

/**
 * D(x), ferryman's `payload_digest`: lowercase hex SHA-256 (64 chars) of
 * `canonicalJson(node)`'s UTF-8 bytes. Throws RangeError only as `canonicalJson` does.
 */
export function payloadDigest(node: JsonNode): string {
  return sha256HexOfText(canonicalJson(node));
}

/**
 * Lowercase hex SHA-256 (64 chars) of raw bytes, used for give-up digests (`giveup:<hex>`
 * targets) and ledger chains (`prev`). Never throws.
 */
export function sha256Hex(bytes: Uint8Array): string {
  return fastSha256 ? fastSha256(bytes) : bytesToHex(sha256(bytes));
}

/**
 * A faster SHA-256 (lowercase hex of bytes or of a string's UTF-8) a server may install (the
 * server's node:crypto, lib/index/disk/verifier.ts): the same function, so the same digests, at a
 * fraction of the pure-JavaScript one's cost on a cold index (~7 µs a payload digest here).
 */
export type Sha256Hex = (data: Uint8Array | string) => string;
let fastSha256: Sha256Hex | null = null;

/** Installs `f` as this thread's SHA-256 (null: the pure-JavaScript one again). */
export function installSha256(f: Sha256Hex | null): void {
  fastSha256 = f;
}

/**
 * Lowercase hex SHA-256 (64 chars) of a string's UTF-8 bytes.
 * An unpaired surrogate is encoded as U+FFFD (TextEncoder's rule). Never throws.
 */
export function sha256HexOfText(text: string): string {
  return fastSha256 ? fastSha256(text) : bytesToHex(sha256(utf8Encoder.encode(text)));
}
