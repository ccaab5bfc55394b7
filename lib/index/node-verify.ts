import 'server-only';
/**
 * Ed25519 verification with node:crypto, one cached KeyObject per public key
 * (LEDGER.md §3.1; STACK.md: ~16,000/s cached vs ~190/s for tweetnacl).
 */
import { createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import type { Ed25519Verify } from '../ledger/verify';

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const keys = new Map<string, KeyObject | null>();

function keyObject(publicKeyHex: string): KeyObject | null {
  const k = publicKeyHex.toLowerCase();
  let ko = keys.get(k);
  if (ko === undefined) {
    try {
      ko = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, Buffer.from(k, 'hex')]), format: 'der', type: 'spki' });
    } catch {
      ko = null; // not a point on the curve
    }
    if (keys.size > 10_000) keys.clear();
    keys.set(k, ko);
  }
  return ko;
}

/** Verifies with node:crypto (OpenSSL's Ed25519, which rejects non-canonical S). Never throws. */
export const nodeVerify: Ed25519Verify = (publicKeyHex, message, signatureHex) => {
  const ko = keyObject(publicKeyHex);
  if (!ko) return false;
  try {
    return cryptoVerify(null, Buffer.from(message, 'utf8'), ko, Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
};
