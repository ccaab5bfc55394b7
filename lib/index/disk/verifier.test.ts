/**
 * The two server verifiers (verifier.ts): sodium-native and node:crypto give the same answer for
 * the same inputs, valid, tampered, wrong key, malformed and the edge cases where Ed25519
 * implementations differ (small-order keys and R, S >= L), and both follow ferry's rule
 * (ed25519-dalek's verify_strict); node:crypto is chosen when sodium-native cannot load.
 */
import { createHash, hash, createPrivateKey, generateKeyPairSync, sign as cryptoSign, verify as cryptoVerify, createPublicKey } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRequire } from 'node:module';
import { chooseVerifier, NODE_VERIFIER } from './verifier';
import { parseStrictJsonText } from '../../ledger/json';
import { payloadDigest, sha256Hex, sha256HexOfText, installSha256 } from '../../ledger/canonical';
import { SMALL_ORDER_Y } from './node-verify';
import { vectorKeys, VECTORS_DIR } from '../../../test/support/vectors';

const sodium = chooseVerifier({ want: 'sodium' }); // throws here if sodium-native cannot load on this machine
const node = NODE_VERIFIER;

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
function signWith(seedHex: string, message: string): string {
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, Buffer.from(seedHex, 'hex')]), format: 'der', type: 'pkcs8' });
  return cryptoSign(null, Buffer.from(message, 'utf8'), key).toString('hex');
}
/** OpenSSL's answer alone, without the strict rule (what a plain OpenSSL verify asks). */
function opensslAlone(keyHex: string, message: string, sigHex: string): boolean {
  const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, Buffer.from(keyHex, 'hex')]), format: 'der', type: 'spki' });
  return cryptoVerify(null, Buffer.from(message, 'utf8'), key, Buffer.from(sigHex, 'hex'));
}

// Curve constants (RFC 8032 §5.1): the field prime, the group order, d.
const P = 2n ** 255n - 19n;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const mod = (a: bigint, m = P) => ((a % m) + m) % m;
const powMod = (b: bigint, e: bigint): bigint => {
  let r = 1n;
  for (b = mod(b); e > 0n; e >>= 1n, b = (b * b) % P) if (e & 1n) r = (r * b) % P;
  return r;
};
const D = mod(-121665n * powMod(121666n, P - 2n));
const le = (hex: string): bigint => BigInt('0x' + (Buffer.from(hex, 'hex').reverse().toString('hex') || '0'));
const leHex = (n: bigint): string => Buffer.from(n.toString(16).padStart(64, '0'), 'hex').reverse().toString('hex');

const IDENTITY = '01' + '00'.repeat(31);
const { ops, fang } = vectorKeys() as Record<'ops' | 'fang', { seed: string; public_key: string }>;

/**
 * Both verifiers' answers; the test asserts them against the expected one. Where the key and
 * signature are whole hex of 32 and 64 bytes, each one's answer on the bytes must be the same.
 */
const both = (k: string, m: string, s: string) => {
  const r = [sodium.verify(k, m, s), node.verify(k, m, s)];
  if (/^[0-9a-f]{64}$/i.test(k) && /^[0-9a-f]{128}$/i.test(s)) {
    const [kb, mb, sb] = [Buffer.from(k, 'hex'), Buffer.from(m, 'utf8'), Buffer.from(s, 'hex')];
    expect([sodium.verifyBytes(kb, mb, sb), node.verifyBytes(kb, mb, sb)], 'on bytes').toEqual(r);
  }
  return r;
};

describe('sodium-native and node:crypto agree', () => {
  it('sodium-native loads on this machine (linux-x64 glibc, Node 20: the package ships that binary)', () => {
    expect(sodium.name).toBe('sodium-native');
    expect(sodium.fallback).toBeNull();
  });

  it('accept RFC 8032 §7.1 TEST 1 and TEST 2, and refuse each with a message, key or signature one bit off', () => {
    const cases = [
      { key: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', msg: '', sig: 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b' },
      { key: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c', msg: 'r', sig: '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00' },
    ];
    const flip = (hex: string, i: number) => hex.slice(0, i) + (parseInt(hex[i]!, 16) ^ 1).toString(16) + hex.slice(i + 1);
    for (const c of cases) {
      expect(both(c.key, c.msg, c.sig)).toEqual([true, true]);
      expect(both(c.key, c.msg + 'x', c.sig)).toEqual([false, false]);
      expect(both(flip(c.key, 10), c.msg, c.sig)).toEqual([false, false]);
      for (const i of [0, 31, 63, 64, 100, 127]) expect(both(c.key, c.msg, flip(c.sig, i)), `sig digit ${i}`).toEqual([false, false]);
    }
  });

  it('agree on generated keys and messages: valid, tampered, wrong key, either case', () => {
    const messages = ['', 'claimboard-ack-v1\nt1\nops\ngiveup:00\nnoted: é ✓\n2026-08-20T10:11:12.500+00:00', 'x'.repeat(10_000), '\u{1F6A2} ferry'];
    const keys = Array.from({ length: 6 }, () => {
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      return { pub: publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex'), priv: privateKey };
    });
    let checked = 0;
    for (const [i, k] of keys.entries()) {
      const other = keys[(i + 1) % keys.length]!;
      for (const m of messages) {
        const sig = cryptoSign(null, Buffer.from(m, 'utf8'), k.priv).toString('hex');
        expect(both(k.pub, m, sig)).toEqual([true, true]);
        expect(both(k.pub.toUpperCase(), m, sig.toUpperCase())).toEqual([true, true]);
        expect(both(other.pub, m, sig)).toEqual([false, false]);
        expect(both(k.pub, m + ' ', sig)).toEqual([false, false]);
        expect(both(k.pub, m.slice(1), sig)).toEqual(m === '' ? [true, true] : [false, false]);
        checked += 5;
      }
    }
    expect(checked).toBe(6 * 4 * 5);
  });

  it('refuse malformed hex without throwing: odd, short, long, non-hex, empty', () => {
    const m = 'claimboard';
    const sig = signWith(ops.seed, m);
    const k = ops.public_key;
    expect(both(k, m, sig)).toEqual([true, true]);
    for (const [key, s] of [
      [k, sig + '00'], // 65 bytes: sodium-native alone would read the first 64
      [k, sig + 'zz'], // Buffer.from(hex) alone would stop before 'zz' and read 64 good bytes
      [k, sig.slice(0, 126)],
      [k, sig.slice(0, 127)],
      [k, ''],
      [k, 'g' + sig.slice(1)],
      [k + '00', sig],
      [k.slice(0, 62), sig],
      [k.slice(0, 63) + 'x', sig],
      ['', sig],
    ] as const) {
      expect(both(key, m, s), `${key.length}/${s.length}`).toEqual([false, false]);
    }
    // On bytes: a key or signature one byte short or long (within a larger buffer, as a segment's are).
    const [kb, mb, sb] = [Buffer.from(k, 'hex'), Buffer.from(m, 'utf8'), Buffer.from(sig, 'hex')];
    expect([sodium.verifyBytes(kb, mb, sb), node.verifyBytes(kb, mb, sb)]).toEqual([true, true]);
    const wide = Buffer.concat([kb, sb, Buffer.alloc(1)]);
    for (const [key, s] of [
      [kb, wide.subarray(32, 96 + 1)],
      [kb, sb.subarray(0, 63)],
      [wide.subarray(0, 33), sb],
      [kb.subarray(0, 31), sb],
    ] as const) {
      expect([sodium.verifyBytes(key, mb, s), node.verifyBytes(key, mb, s)], `${key.length}/${s.length}`).toEqual([false, false]);
    }
  });

  it('refuse a non-canonical S (S + L, the same point equation)', () => {
    const m = 'release';
    const sig = signWith(fang.seed, m);
    const s = le(sig.slice(64));
    const sPlusL = sig.slice(0, 64) + leHex(s + L); // S + L < 2^256 since S < L < 2^253
    expect(both(fang.public_key, m, sig)).toEqual([true, true]);
    expect(both(fang.public_key, m, sPlusL)).toEqual([false, false]);
  });
});

describe("ferry's strict rule on small-order points", () => {
  it('SMALL_ORDER_Y are the y of the points of order 1, 2, 4 and 8, and p, p + 1', () => {
    // Order 8: 2P has order 4, so y(2P) = (y^2 + x^2) / (1 - d x^2 y^2) = 0, x^2 = -y^2; on the
    // curve -x^2 + y^2 = 1 + d x^2 y^2 that is d y^4 + 2 y^2 = 1.
    const ys = SMALL_ORDER_Y.map(le);
    expect(ys.map((y) => (y === P || y === P + 1n ? 'non-canonical' : y === 0n ? '0' : y === 1n ? '1' : y === P - 1n ? '-1' : mod(D * y ** 4n + 2n * y ** 2n) === 1n ? 'order 8' : 'other')))
      .toEqual(['0', '1', '-1', 'order 8', 'order 8', 'non-canonical', 'non-canonical']);
  });

  it('a small-order key with R = identity and S = 0 verifies for any message in OpenSSL alone; both verifiers refuse it', () => {
    // A = the identity: S·B = 0 = R + k·A for every k, so any message "verifies" (cofactorless).
    const sig = IDENTITY + '00'.repeat(32);
    for (const m of ['anything', 'else']) expect(opensslAlone(IDENTITY, m, sig)).toBe(true);
    for (const y of SMALL_ORDER_Y) {
      for (const key of [y, y.slice(0, 62) + (parseInt(y.slice(62), 16) | 0x80).toString(16)]) {
        expect(both(key, 'anything', sig), key).toEqual([false, false]);
      }
    }
  });

  it("a real key's signature with R = the identity (S = k·a) verifies in OpenSSL alone; both verifiers refuse it", () => {
    // a: the clamped secret scalar of ops' seed (RFC 8032 §5.1.5); k = SHA-512(R || A || M) mod L.
    const h = createHash('sha512').update(Buffer.from(ops.seed, 'hex')).digest();
    h[0] = h[0]! & 248;
    h[31] = (h[31]! & 127) | 64;
    const a = le(h.subarray(0, 32).toString('hex'));
    const m = 'claimboard-requeue-v1\nt1\nops';
    const k = mod(le(createHash('sha512').update(Buffer.concat([Buffer.from(IDENTITY, 'hex'), Buffer.from(ops.public_key, 'hex'), Buffer.from(m, 'utf8')])).digest('hex')), L);
    const sig = IDENTITY + leHex(mod(k * a, L)); // S·B = k·a·B = k·A = R + k·A
    expect(opensslAlone(ops.public_key, m, sig)).toBe(true);
    expect(both(ops.public_key, m, sig)).toEqual([false, false]);
  });
});

describe('choosing the verifier', () => {
  it("CLAIMBOARD_VERIFIER=node gives node:crypto without loading anything", () => {
    const load = vi.fn(() => ({}));
    expect(chooseVerifier({ want: 'node', load })).toEqual({ name: 'node:crypto', verify: NODE_VERIFIER.verify, verifyBytes: NODE_VERIFIER.verifyBytes, fallback: null });
    expect(load).not.toHaveBeenCalled();
  });

  it('falls back to node:crypto, with the reason, when sodium-native cannot load or is not what it should be', () => {
    const missing = chooseVerifier({ load: () => { throw new Error("Cannot find module 'sodium-native'\nRequire stack: ..."); } });
    expect([missing.name, missing.fallback]).toEqual(['node:crypto', "Cannot find module 'sodium-native'"]);
    expect(missing.verify).toBe(NODE_VERIFIER.verify);
    expect(chooseVerifier({ load: () => ({}) }).fallback).toBe('the module has no crypto_sign_verify_detached');
    expect(chooseVerifier({ load: () => ({ crypto_sign_verify_detached: () => true }) }).fallback).toBe('it failed the RFC 8032 test vector');
    expect(chooseVerifier({ load: () => createRequire(import.meta.url)('sodium-native') }).name).toBe('sodium-native');
  });

  it('CLAIMBOARD_VERIFIER=sodium is an error when sodium-native cannot load', () => {
    expect(() => chooseVerifier({ want: 'sodium', load: () => { throw new Error('no binary for linux-riscv64'); } })).toThrow('CLAIMBOARD_VERIFIER=sodium, but sodium-native cannot be used here: no binary for linux-riscv64');
  });
});

describe("the process's verifier (serverVerifier)", () => {
  const saved = process.env.CLAIMBOARD_VERIFIER;
  afterEach(() => {
    if (saved === undefined) delete process.env.CLAIMBOARD_VERIFIER;
    else process.env.CLAIMBOARD_VERIFIER = saved;
    vi.resetModules();
  });

  it('logs a load failure once and keeps node:crypto', async () => {
    delete process.env.CLAIMBOARD_VERIFIER;
    vi.resetModules();
    const v = await import('./verifier');
    const lines: string[] = [];
    const load = () => { throw new Error('invalid ELF header'); };
    expect(v.serverVerifier((l) => lines.push(l), load).name).toBe('node:crypto');
    expect(v.serverVerifier((l) => lines.push(l), load).name).toBe('node:crypto');
    const sig = signWith(ops.seed, 'm');
    for (let i = 0; i < 3; i++) expect(v.serverVerify(ops.public_key, 'm', sig)).toBe(true);
    expect(lines).toEqual(['claimboard: verifying signatures with node:crypto: sodium-native cannot be used here (invalid ELF header)']);
  });

  it('chooses nothing in its first LAZY_LOAD_AFTER verifications (node:crypto), and chooses at the next', async () => {
    delete process.env.CLAIMBOARD_VERIFIER;
    const sig = signWith(ops.seed, 'm');
    const cannot = () => { throw new Error('not loaded in this test'); };
    for (const calls of [500, 501]) {
      vi.resetModules();
      const v = await import('./verifier');
      expect(v.LAZY_LOAD_AFTER).toBe(500);
      for (let i = 0; i < calls; i++) expect(v.serverVerify(ops.public_key, 'm', sig)).toBe(true);
      // Nothing chose after 500 calls: this first choice takes the loader given here (and fails);
      // after 501 the real sodium-native was chosen, and the loader given is never called.
      expect(v.serverVerifier(() => {}, cannot).name).toBe(calls === 500 ? 'node:crypto' : 'sodium-native');
    }
  });

  it('the index on worker threads gives the same board with either verifier, and its ready line names it', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'claimboard-verifier-'));
    try {
      for (const c of ['17-bad-signatures', '11-give-up-ack-reopen', '22-ledger', '13-retired']) fs.cpSync(path.join(VECTORS_DIR, c, 'channel'), root, { recursive: true, force: true });
      const boards: unknown[] = [];
      for (const want of ['sodium', 'node'] as const) {
        process.env.CLAIMBOARD_VERIFIER = want;
        vi.resetModules();
        const { Indexer } = await import('../indexer');
        const { openMemory } = await import('../db');
        const db = openMemory();
        const lines: string[] = [];
        const ix = new Indexer({ root, db, staleAfterMs: 300_000, clock: () => 1_800_000_000_000, watch: false, workers: 2, log: (l) => lines.push(l) });
        await ix.start();
        await ix.stop();
        const name = want === 'sodium' ? 'sodium-native' : 'node:crypto';
        expect(lines.find((l) => l.startsWith('index: ready'))).toContain(`signatures verified (${name})`);
        boards.push({
          cards: db.prepare('SELECT order_id, lane, state, holder, card FROM cards ORDER BY order_id').all(),
          problems: db.prepare('SELECT path, problem, line FROM problems ORDER BY path, problem').all(),
        });
      }
      expect(boards[0]).toEqual(boards[1]);
      const problems = (boards[0] as { problems: { problem: string }[] }).problems.map((p) => p.problem);
      expect(problems).toContain('invalid_signature'); // 17-bad-signatures' forged record, refused by both
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("the server's SHA-256 (installed by verifier.ts for json.ts)", () => {
  afterEach(() => installSha256((data) => hash('sha256', data, 'hex')));

  it('gives the FIPS 180-2 digests, and the same payload digests as the pure-JavaScript one', () => {
    // FIPS 180-2, appendix B.1: SHA-256("abc").
    const abc = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    expect(sha256HexOfText('abc')).toBe(abc);
    expect(sha256Hex(new TextEncoder().encode('abc'))).toBe(abc);
    // D({}) as docs/channel-format.md gives it (json.test.ts holds the same constant).
    const empty = parseStrictJsonText('{}');
    if (!empty.ok) throw new Error(empty.reason);
    expect(payloadDigest(empty.node)).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
    // Non-ASCII text and a lone surrogate (encoded as U+FFFD by both): the pure one must agree.
    const payload = parseStrictJsonText('{"b":"caf\u00e9 \u2603","a":[1,2.5,-0,1e21],"z":{"y":null}}');
    if (!payload.ok) throw new Error(payload.reason);
    const texts = ['caf\u00e9', 'a\ud800b', ''];
    const fast = [payloadDigest(payload.node), ...texts.map(sha256HexOfText)];
    installSha256(null);
    expect([payloadDigest(payload.node), ...texts.map(sha256HexOfText)]).toEqual(fast);
  });
});
