import { describe, expect, it } from 'vitest';
import { naclPublicKey, naclSign } from '../../ledger/nacl-verify';
import { nodePublicKey, nodeSign } from './node-sign';

describe('nodeSign', () => {
  it('gives the signature and public key tweetnacl gives, for several seeds and messages', () => {
    for (const seed of ['00'.repeat(32), 'ab'.repeat(32), 'c0ffee'.repeat(10) + 'beef']) {
      expect(nodePublicKey(seed)).toBe(naclPublicKey(seed));
      for (const m of ['', 'order\nid=t1', 'ünïcode ✓']) expect(nodeSign(seed, m)).toBe(naclSign(seed, m));
    }
  });
  it('refuses a seed that is not 64 hex digits', () => {
    expect(() => nodeSign('abc', 'x')).toThrow('an Ed25519 seed is 64 hex digits');
  });
});
