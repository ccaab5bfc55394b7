/**
 * The signed sample the bench's verifier rows use (4,000 release payloads signed by the ops key),
 * and a verifier's rate over it on this thread: the "verifier alone" rows; the same sample goes to
 * every core for the "verifying alone, all cores" row (bench/verify-all.ts).
 */
import { performance } from 'node:perf_hooks';
import { OPS, benchSeed, benchSigner } from './generate';
import type { Verifier } from '../lib/index/disk/verifier';
import { naclPublicKey } from '../lib/ledger/nacl-verify';
import { sec } from './harness';

/**
 * Verifications per second of `v` on this thread (one core), over 4,000 release payloads signed
 * by one key, after one untimed call (node:crypto builds its KeyObject, sodium-native nothing).
 * Throws when a sample does not verify.
 */
export function verifierRate(v: Verifier): number {
  const sample = verifySample();
  const [pub, m0, s0] = sample[0]!;
  v.verify(pub, m0, s0);
  const t = performance.now();
  for (const [k, m, s] of sample) if (!v.verify(k, m, s)) throw new Error(`a sample signature did not verify (${v.name})`);
  return sample.length / sec(performance.now() - t);
}

let samples: [string, string, string][] | null = null;
/** 4,000 release payloads signed by the ops key: [public key hex, message, signature hex]. */
export function verifySample(): [string, string, string][] {
  if (samples) return samples;
  const sign = benchSigner(OPS);
  const pub = naclPublicKey(benchSeed(OPS));
  samples = [];
  for (let i = 0; i < 4000; i++) {
    const m = `ferryman-release-v1\norder-${i}\nworker-${i % 40}\nops\nrequeued: stale\n2026-11-01T00:00:00+00:00`;
    samples.push([pub, m, sign(m)]);
  }
  return samples;
}
