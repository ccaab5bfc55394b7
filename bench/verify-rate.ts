/**
 * `node --conditions=react-server --import tsx bench/verify-rate.ts [--n N] [--rounds R]`:
 * Ed25519 verifications per second on one core (this thread) with each server verifier
 * (lib/index/disk/verifier.ts): node:crypto and sodium-native, over the same N signed payloads
 * (release payloads, 40 signing keys, as a channel has), rounds interleaved so both meet the same
 * machine load; and the same for signatures with one bit flipped (what a forged record costs).
 * Prints the median and best round of each; asserts only that every valid sample verifies and
 * every flipped one does not.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { chooseVerifier, NODE_VERIFIER, type Verifier } from '../lib/index/disk/verifier';

const arg = (k: string, d: number) => {
  const i = process.argv.indexOf(k);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const n = arg('--n', 4000);
const rounds = arg('--rounds', 5);

const keys = Array.from({ length: 40 }, () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { pub: publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex'), priv: privateKey };
});
const valid: [string, string, string][] = [];
for (let i = 0; i < n; i++) {
  const k = keys[i % keys.length]!;
  const m = `ferryman-release-v1\norder-${i}\nworker-${i % 40}\nops\nrequeued: stale\n2026-11-01T00:00:00+00:00`;
  valid.push([k.pub, m, sign(null, Buffer.from(m, 'utf8'), k.priv).toString('hex')]);
}
const flipped = valid.map(([k, m, s]): [string, string, string] => [k, m, s.slice(0, 70) + (s[70] === '0' ? '1' : '0') + s.slice(71)]);

/** Verifications per second of `v` over `set`; throws when an answer is not `want`. */
function rate(v: Verifier, set: readonly [string, string, string][], want: boolean): number {
  const t = performance.now();
  for (const [k, m, s] of set) if (v.verify(k, m, s) !== want) throw new Error(`${v.name}: a sample did not give ${want}`);
  return set.length / ((performance.now() - t) / 1000);
}

const sodium = chooseVerifier();
const verifiers = sodium.name === 'sodium-native' ? [NODE_VERIFIER, sodium] : [NODE_VERIFIER];
if (sodium.name !== 'sodium-native') console.log(`sodium-native not used: ${sodium.fallback ?? 'CLAIMBOARD_VERIFIER=node'}`);
for (const v of verifiers) rate(v, valid.slice(0, 200), true); // warm: KeyObjects, JIT
const runs = new Map<string, number[]>();
for (let r = 0; r < rounds; r++) {
  for (const v of verifiers) {
    for (const [label, set, want] of [['valid', valid, true], ['one bit flipped', flipped, false]] as const) {
      const key = `${v.name} ${label}`;
      runs.set(key, [...(runs.get(key) ?? []), rate(v, set, want)]);
    }
  }
}
console.log(`Ed25519 verify on one core, ${n} payloads x ${rounds} rounds (40 keys), node ${process.version}:`);
for (const [key, xs] of runs) {
  const s = [...xs].sort((a, b) => a - b);
  console.log(`  ${key.padEnd(32)} median ${Math.round(s[Math.floor(s.length / 2)]!)} /s, best ${Math.round(s[s.length - 1]!)} /s`);
}
