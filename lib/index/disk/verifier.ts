import 'server-only';
/**
 * The Ed25519 verifier the server uses: libsodium's `crypto_sign_verify_detached`
 * through sodium-native (a registry package with its own prebuilt binaries) when it loads here,
 * node:crypto otherwise. Both follow ferry's strict rule (ed25519-dalek's `verify_strict`, see
 * node-verify.ts) and give the same answer for every input (verifier.test.ts runs both on the
 * same inputs); sodium-native is the faster (bench/README.md "Verifier").
 *
 * `CLAIMBOARD_VERIFIER=node` forces node:crypto; `=sodium` requires sodium-native (an Error
 * when it cannot load, for checks that must prove it loads). Unset, a load failure is logged
 * once per process (on its main thread) and node:crypto is used: never a crash.
 */
import { createRequire } from 'node:module';
import { hash } from 'node:crypto';
import { isMainThread } from 'node:worker_threads';
import { settings } from '../../config';
import type { Ed25519Verify } from '../../ledger/verify';
import { installSha256 } from '../../ledger/canonical';
import { nodeVerify } from './node-verify';

// Every server-side reader imports this module (serverVerify): its threads' payload and file
// digests (json.ts) take node:crypto's SHA-256, the same digests as the pure-JavaScript one at
// about a seventh of the cost (a cold index computes one or two per folder).
installSha256((data) => hash('sha256', data, 'hex'));

/** Which implementation verifies. */
export type VerifierName = 'sodium-native' | 'node:crypto';

/**
 * Ed25519 over bytes as they lie in a buffer: a 32-byte key, the message as signed (UTF-8), a
 * 64-byte signature. The same answer as Ed25519Verify on their hex and text; false for other
 * lengths. A cold index's checking pass reads its signatures as bytes (spill.ts): no hex or
 * text made only to be turned back into bytes (about 3 us of a 68 us check).
 */
export type Ed25519VerifyBytes = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean;

/** A chosen verifier: its name, the function (on hex and text, and on bytes), and why sodium-native was not taken (null when it was, or node was asked for). */
export interface Verifier {
  readonly name: VerifierName;
  readonly verify: Ed25519Verify;
  readonly verifyBytes: Ed25519VerifyBytes;
  readonly fallback: string | null;
}

/** An Ed25519VerifyBytes through `verify` (hex and text): for a verifier that takes no bytes (node:crypto, a test's). */
export function bytesThrough(verify: Ed25519Verify): Ed25519VerifyBytes {
  const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
  // Bytes made from a string decode to it (a lone surrogate was already U+FFFD when written).
  return (k, m, s) => k.length === 32 && s.length === 64 && verify(hex(k), Buffer.from(m.buffer, m.byteOffset, m.byteLength).toString('utf8'), hex(s));
}

/** The one function of sodium-native used: true when `sig` (64 bytes) signs `m` under `pk` (32 bytes). */
export interface SodiumVerify {
  crypto_sign_verify_detached(sig: Uint8Array, m: Uint8Array, pk: Uint8Array): boolean;
}

const HEX64 = /^[0-9a-fA-F]{64}$/;
const HEX128 = /^[0-9a-fA-F]{128}$/;

/**
 * An Ed25519Verify on sodium-native: false for a key or signature that is not 64 / 128 hex
 * digits (sodium-native would read the first 64 bytes of a longer signature), else libsodium's
 * answer, which already refuses small-order keys and R, non-canonical keys and S >= L. Never throws.
 */
export function sodiumVerify(sodium: SodiumVerify): Ed25519Verify {
  const bytes = sodiumVerifyBytes(sodium);
  return (publicKeyHex, message, signatureHex) =>
    HEX64.test(publicKeyHex) && HEX128.test(signatureHex) && bytes(Buffer.from(publicKeyHex, 'hex'), Buffer.from(message, 'utf8'), Buffer.from(signatureHex, 'hex'));
}

/** sodium-native's Ed25519VerifyBytes: false for a key or signature of another length, else libsodium's answer. Never throws. */
export function sodiumVerifyBytes(sodium: SodiumVerify): Ed25519VerifyBytes {
  return (publicKey, message, signature) => {
    if (publicKey.length !== 32 || signature.length !== 64) return false;
    try {
      return sodium.crypto_sign_verify_detached(signature, message, publicKey);
    } catch {
      return false;
    }
  };
}

/** node:crypto as a Verifier. */
export const NODE_VERIFIER: Verifier = { name: 'node:crypto', verify: nodeVerify, verifyBytes: bytesThrough(nodeVerify), fallback: null };

/** Loads sodium-native with Node's own require (a native module: never bundled, see next.config.mjs and scripts/build-cli.mjs). */
function loadSodiumNative(): unknown {
  return createRequire(import.meta.url)('sodium-native');
}

// RFC 8032 §7.1 TEST 1 (empty message): a loaded binary must accept it and refuse it with a bit flipped.
const RFC_KEY = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
const RFC_SIG = 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155' + '5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b';
const RFC_SIG_FLIPPED = 'f5' + RFC_SIG.slice(2);

/**
 * Chooses the verifier: `want` 'node' gives node:crypto; otherwise sodium-native from `load`
 * (default: require('sodium-native')) when it loads, has `crypto_sign_verify_detached` and
 * passes the RFC 8032 check above; when it does not, node:crypto with the reason in `fallback`,
 * or, with `want` 'sodium', an Error. Logs nothing.
 */
export function chooseVerifier(o: { readonly want?: 'node' | 'sodium' | undefined; readonly load?: () => unknown } = {}): Verifier {
  if (o.want === 'node') return NODE_VERIFIER;
  let reason: string;
  try {
    const mod = (o.load ?? loadSodiumNative)() as Partial<SodiumVerify> | null;
    if (typeof mod?.crypto_sign_verify_detached !== 'function') {
      reason = 'the module has no crypto_sign_verify_detached';
    } else {
      const verify = sodiumVerify(mod as SodiumVerify);
      if (verify(RFC_KEY, '', RFC_SIG) && !verify(RFC_KEY, '', RFC_SIG_FLIPPED)) return { name: 'sodium-native', verify, verifyBytes: sodiumVerifyBytes(mod as SodiumVerify), fallback: null };
      reason = 'it failed the RFC 8032 test vector';
    }
  } catch (e) {
    reason = e instanceof Error ? e.message.split('\n')[0]! : String(e);
  }
  if (o.want === 'sodium') throw new Error(`CLAIMBOARD_VERIFIER=sodium, but sodium-native cannot be used here: ${reason}`);
  return { ...NODE_VERIFIER, fallback: reason };
}

let chosen: Verifier | null = null;

/**
 * This process's (or worker thread's) verifier, chosen on first use from CLAIMBOARD_VERIFIER
 * and kept. A fallback to node:crypto is logged once, on the main thread (`log`, default
 * console.warn); `load` replaces require('sodium-native') for that first choice (tests). Throws only
 * when CLAIMBOARD_VERIFIER=sodium cannot be honoured or is not a valid value.
 */
export function serverVerifier(log: (line: string) => void = console.warn, load?: () => unknown): Verifier {
  if (!chosen) {
    chosen = chooseVerifier({ want: settings.verifier(), ...(load ? { load } : {}) });
    if (chosen.fallback !== null && isMainThread) log(`claimboard: verifying signatures with node:crypto: sodium-native cannot be used here (${chosen.fallback})`);
  }
  return chosen;
}

/**
 * Verifications a thread makes with node:crypto before it loads sodium-native (when nothing
 * chose yet): loading it takes 30-60 ms here (its loader, require-addon, most of it), about what
 * 500 verifications cost with node:crypto (~65 us each), so a `claimboard state` on a small
 * channel never pays the load and a large one pays at most twice the best case.
 */
export const LAZY_LOAD_AFTER = 500;
let early = 0;

/**
 * The Ed25519Verify every server-side reader passes (where nodeVerify was passed before):
 * serverVerifier()'s, except that a thread's first LAZY_LOAD_AFTER calls, made before anything
 * chose, use node:crypto (the same answers, see above), unless CLAIMBOARD_VERIFIER=sodium.
 */
export const serverVerify: Ed25519Verify = (publicKeyHex, message, signatureHex) => {
  const v = chosen ?? (++early <= LAZY_LOAD_AFTER && settings.verifier() !== 'sodium' ? NODE_VERIFIER : serverVerifier());
  return v.verify(publicKeyHex, message, signatureHex);
};
