/**
 * `npm run bench:state [-- --orders N]`: how long `claimboard state` takes on a generated
 * channel, beside the floor of merely reading it, and how many signatures per second the
 * server's verifier checks. Prints figures; asserts nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { generateChannel } from './generate';
import { readChannel } from '../lib/index/disk/read-channel';
import { deriveChannel } from '../lib/ledger/channel';
import { chooseVerifier, NODE_VERIFIER, serverVerifier } from '../lib/index/disk/verifier';
import { naclVerify } from '../lib/ledger/nacl-verify';
import type { Ed25519Verify } from '../lib/ledger/verify';
import { readFloor } from './floor';

const arg = process.argv.indexOf('--orders');
const n = arg > 0 ? Number(process.argv[arg + 1]) : 10_000;
const cache = path.resolve(import.meta.dirname, '.cache');
fs.mkdirSync(cache, { recursive: true });

let t = performance.now();
const g = generateChannel(n, cache);
console.log(`channel: ${g.orders} orders, ${g.files} files, ${g.signed} signatures (${((performance.now() - t) / 1000).toFixed(1)} s to generate or load)`);

// Floor: stat + read every file, nothing else (bench/floor.ts, as `npm run bench` measures it).
const floorRun = readFloor(g.root);
const bytes = floorRun.bytes;
const floor = floorRun.ms / 1000;

t = performance.now();
const entries = readChannel(g.root);
const read = (performance.now() - t) / 1000;
let verifications = 0;
const counting: Ed25519Verify = (k, m, s) => {
  verifications++;
  return serverVerifier().verify(k, m, s);
};
t = performance.now();
const state = deriveChannel(entries, { nowMs: Date.now(), verify: counting });
const derive = (performance.now() - t) / 1000;

// Verifier throughput alone, on real payloads: node:crypto, sodium-native (when it loads) and tweetnacl.
const sample: [string, string, string][] = [];
const grab: Ed25519Verify = (k, m, s) => {
  if (sample.length < 2000) sample.push([k, m, s]);
  return true;
};
deriveChannel(entries.slice(0, 4000), { nowMs: Date.now(), verify: grab });
const rate = (v: Ed25519Verify, reps: number) => {
  const t0 = performance.now();
  let ok = 0;
  for (let r = 0; r < reps; r++) for (const [k, m, s] of sample) if (v(k, m, s)) ok++;
  if (ok !== sample.length * reps) throw new Error('a sample signature did not verify');
  return (sample.length * reps) / ((performance.now() - t0) / 1000);
};
const nodeRate = rate(NODE_VERIFIER.verify, 5);
const sodium = chooseVerifier();
const sodiumRate = sodium.name === 'sodium-native' ? rate(sodium.verify, 5) : NaN;
const naclRate = rate(naclVerify, 1);

const lanes: Record<string, number> = {};
for (const c of state.orders) lanes[c.lane] = (lanes[c.lane] ?? 0) + 1;
console.log(`read floor (stat + read, ${(bytes / 1e6).toFixed(1)} MB): ${floor.toFixed(2)} s`);
console.log(`claimboard read (lstat + capped read): ${read.toFixed(2)} s`);
console.log(`derive (parse, verify ${verifications} signatures with ${serverVerifier().name}, derive): ${derive.toFixed(2)} s`);
console.log(`state total: ${(read + derive).toFixed(2)} s = ${((read + derive) / floor).toFixed(2)} x floor`);
console.log(`verify: node:crypto ${Math.round(nodeRate)}/s, sodium-native ${Number.isNaN(sodiumRate) ? `not used (${sodium.fallback ?? ''})` : `${Math.round(sodiumRate)}/s`}, tweetnacl ${Math.round(naclRate)}/s (${sample.length} real payloads)`);
console.log(`lanes: ${JSON.stringify(lanes)}, problems: ${state.problems.length}`);
