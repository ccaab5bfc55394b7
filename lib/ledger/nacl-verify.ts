/**
 * Ed25519 with tweetnacl: the primitive the browser signs with, and a reference verifier for
 * tests. About 190 verifications/s: the server uses node:crypto instead
 * (lib/index/disk/node-verify.ts); both give identical answers.
 */
import nacl from 'tweetnacl';
import { hexToBytes, bytesToHex } from './hex';
import type { Ed25519Verify } from './verify';

const utf8 = new TextEncoder();

/** Verifies with tweetnacl (`nacl.sign.detached.verify`). Never throws. */
export const naclVerify: Ed25519Verify = (publicKeyHex, message, signatureHex) => {
  const key = hexToBytes(publicKeyHex);
  const sig = hexToBytes(signatureHex);
  if (!key || key.length !== 32 || !sig || sig.length !== 64) return false;
  return nacl.sign.detached.verify(utf8.encode(message), sig, key);
};

/** Signs `message` (UTF-8) with a 32-byte Ed25519 seed given as 64 hex digits; 128 hex digits out. Throws on a bad seed. */
export function naclSign(seedHex: string, message: string): string {
  const seed = hexToBytes(seedHex);
  if (!seed || seed.length !== 32) throw new Error('an Ed25519 seed is 64 hex digits');
  const kp = nacl.sign.keyPair.fromSeed(seed);
  return bytesToHex(nacl.sign.detached(utf8.encode(message), kp.secretKey));
}

/** The public key (64 hex digits) of a seed (64 hex digits). Throws on a bad seed. */
export function naclPublicKey(seedHex: string): string {
  const seed = hexToBytes(seedHex);
  if (!seed || seed.length !== 32) throw new Error('an Ed25519 seed is 64 hex digits');
  return bytesToHex(nacl.sign.keyPair.fromSeed(seed).publicKey);
}
