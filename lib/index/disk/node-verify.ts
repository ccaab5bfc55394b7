import 'server-only';
/**
 * Ed25519 verification with node:crypto, one cached KeyObject per public key
 *, under ferry's rule:
 * ed25519-dalek's `verify_strict`, which libsodium's `crypto_sign_verify_detached` follows too.
 *
 * OpenSSL alone is laxer: it takes a key or an R that is a point of small order (C2SP's
 * 914 edge-case vectors: OpenSSL 3.0 accepts 208, ferry's verify_strict and libsodium 43; the
 * other 165 all have a small-order A or R). With the identity as the key, R = the identity and
 * S = 0 verify for every message, so an identity whose roster key is such a point could be
 * signed for by anyone. Those keys and R values are refused here before OpenSSL is asked.
 */
import { createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import type { Ed25519Verify } from '../../ledger/verify';
import { BoundedMemo } from '../../util/bounded-memo';

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const keys = new BoundedMemo<string, KeyObject | null>(10_000);

/**
 * The encodings of edwards25519's eight points of small order, as libsodium's blocklist holds
 * them (ge25519_has_small_order): the y coordinate's 255 bits, little-endian, with the sign bit
 * clear (either sign matches). y = 0 (order 4), 1 (the identity), p - 1 (order 2), the two y
 * with d·y^4 + 2·y^2 = 1 (order 8), and p and p + 1, the non-canonical spellings of 0 and 1.
 */
export const SMALL_ORDER_Y: readonly string[] = [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
];
const SMALL = new Set(SMALL_ORDER_Y);

/** Whether 32 bytes given as 64 lowercase hex digits encode a point of small order, either sign. */
function smallOrder(hex: string): boolean {
  const top = parseInt(hex.slice(62, 64), 16) & 0x7f;
  return SMALL.has(hex.slice(0, 62) + top.toString(16).padStart(2, '0'));
}

/** Whether a key's y is p or above (bytes 1..30 all ff, byte 31 & 0x7f = 7f, byte 0 >= ed): libsodium refuses such keys. */
function nonCanonicalY(hex: string): boolean {
  return /^(e[d-f]|f[0-9a-f])f{60}[7f]f$/.test(hex);
}

const HEX64 = /^[0-9a-f]{64}$/;
const HEX128 = /^[0-9a-f]{128}$/;

function keyObject(k: string): KeyObject | null {
  return keys.get(k, () => {
    try {
      return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, Buffer.from(k, 'hex')]), format: 'der', type: 'spki' });
    } catch {
      return null; // not a point on the curve
    }
  });
}

/**
 * Verifies with node:crypto (OpenSSL's Ed25519: S must be below L, R is compared as encoded)
 * under ferry's strict rule: false for a key or signature that is not 64 / 128 hex digits, a key
 * or R of small order, a key whose y is not below p. Never throws.
 */
export const nodeVerify: Ed25519Verify = (publicKeyHex, message, signatureHex) => {
  const k = publicKeyHex.toLowerCase();
  const s = signatureHex.toLowerCase();
  if (!HEX64.test(k) || !HEX128.test(s) || smallOrder(k) || smallOrder(s.slice(0, 64)) || nonCanonicalY(k)) return false;
  const ko = keyObject(k);
  if (!ko) return false;
  try {
    return cryptoVerify(null, Buffer.from(message, 'utf8'), ko, Buffer.from(s, 'hex'));
  } catch {
    return false;
  }
};
