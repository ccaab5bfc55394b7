/**
 * tweetnacl (what the browser signs with) and node:crypto (what the server verifies with)
 * agree: the same seed gives the same signature bytes, and each verifies the other's
 *.
 */
import { createPrivateKey, sign as cryptoSign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { naclPublicKey, naclSign, naclVerify } from '../../ledger/nacl-verify';
import { nodeVerify } from './node-verify';
import { vectorKeys } from '../../../test/support/vectors';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
function nodeSign(seedHex: string, message: string): string {
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, Buffer.from(seedHex, 'hex')]), format: 'der', type: 'pkcs8' });
  return cryptoSign(null, Buffer.from(message, 'utf8'), key).toString('hex');
}

const { ops } = vectorKeys() as { ops: { seed: string; public_key: string } };
const payload = 'claimboard-ack-v1\nt1\nops\ngiveup:00\nnoted: é ✓\n2026-08-20T10:11:12.500+00:00';

describe('Ed25519 across tweetnacl and node:crypto', () => {
  it('derives the published public key from the seed', () => {
    expect(naclPublicKey(ops.seed)).toBe(ops.public_key);
  });
  it('produces identical signatures (Ed25519 is deterministic)', () => {
    expect(naclSign(ops.seed, payload)).toBe(nodeSign(ops.seed, payload));
  });
  it('verifies a tweetnacl signature with node:crypto and a node:crypto one with tweetnacl', () => {
    const byNacl = naclSign(ops.seed, payload);
    const byNode = nodeSign(ops.seed, payload);
    expect(nodeVerify(ops.public_key, payload, byNacl)).toBe(true);
    expect(naclVerify(ops.public_key, payload, byNode)).toBe(true);
  });
  it('rejects the same signature over a payload one character off, in both', () => {
    const sig = naclSign(ops.seed, payload);
    const other = payload.replace('noted', 'Noted');
    expect(nodeVerify(ops.public_key, other, sig)).toBe(false);
    expect(naclVerify(ops.public_key, other, sig)).toBe(false);
  });
  it('rejects a flipped signature bit and a key that is not a curve point, without throwing', () => {
    const sig = naclSign(ops.seed, payload);
    const flipped = (sig[0] === '0' ? '1' : '0') + sig.slice(1);
    expect(nodeVerify(ops.public_key, payload, flipped)).toBe(false);
    expect(naclVerify(ops.public_key, payload, flipped)).toBe(false);
    // y = 2 does not decode to a point on edwards25519 (x^2 = (y^2-1)/(d y^2+1) is a non-square).
    const notAPoint = '02' + '00'.repeat(31);
    expect(nodeVerify(notAPoint, payload, sig)).toBe(false);
    expect(naclVerify(notAPoint, payload, sig)).toBe(false);
  });
});
