import 'server-only';
/**
 * Ed25519 signing with node:crypto, for what signs on this machine's own behalf (the demo fleet,
 * the CLI's acts, the test fleets): about a hundred times faster than tweetnacl, which the
 * browser signs with. Ed25519 is deterministic, so both give the same signature for a seed and
 * a message (lib/index/disk/node-sign.test.ts).
 */
import { createPrivateKey, createPublicKey, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { BoundedMemo } from '../../util/bounded-memo';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const keys = new BoundedMemo<string, KeyObject>(1_000);

function privateKey(seedHex: string): KeyObject {
  return keys.get(seedHex, () => {
    if (!/^[0-9a-fA-F]{64}$/.test(seedHex)) throw new Error('an Ed25519 seed is 64 hex digits');
    return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, Buffer.from(seedHex, 'hex')]), format: 'der', type: 'pkcs8' });
  });
}

/** Signs `message` (UTF-8) with a 32-byte seed given as 64 hex digits; 128 hex digits out. Throws on a bad seed. */
export function nodeSign(seedHex: string, message: string): string {
  return cryptoSign(null, Buffer.from(message, 'utf8'), privateKey(seedHex)).toString('hex');
}

/** The public key (64 hex digits) of a seed (64 hex digits). Throws on a bad seed. */
export function nodePublicKey(seedHex: string): string {
  return createPublicKey(privateKey(seedHex)).export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
}
