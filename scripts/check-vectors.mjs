#!/usr/bin/env node
// Runs the project's CLI over the conformance cases through the real filesystem, as a user
// would: every case's channel is copied to a temp folder, each file is touched (chmod) at the
// moment its content should arrive (expect.json's `age_s`, scaled down to a minute, with
// the staleness window scaled alike), then `claimboard state <copy> --json` is evaluated
// and its answer compared with expect.json (conformance/vectors/README.md says how to read it).
//
//   node scripts/check-vectors.mjs [project-dir] [cases-dir] [case-name-filter]
//
// project-dir defaults to this repository, cases-dir to its conformance/vectors. Adapted from
// the shared contract's tools/check-vectors.mjs. Prints one line per failed expectation and,
// last, "passed N/M"; exits 0 only when every case passed (and at least one was found),
// 1 when a case failed, 2 on bad usage (a cases-dir that is missing or holds no case).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '..');
const [projectArg, casesArg, filter] = process.argv.slice(2);
const projectDir = path.resolve(projectArg ?? repo);
const casesDir = path.resolve(casesArg ?? path.join(repo, 'conformance/vectors'));
// The project's own command (package.json `bin`), run by node directly: what `npx claimboard` runs.
const claimboardBin = path.join(projectDir, JSON.parse(fs.readFileSync(path.join(projectDir, 'package.json'), 'utf8')).bin.claimboard);
// Real seconds the oldest arrival is placed before evaluation: long enough that a loaded
// machine's late timers (a second or two) are small beside every age and window (the closest
// age to a stale threshold among the cases is then 6.7 s from it). The wait costs no CPU:
// `npm test` runs this beside the unit tests.
const MAX_SPAN_S = Number(process.env.SPAN_S || 60);
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

function listFiles(root, rel = '') {
  const out = [];
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const r = path.join(rel, e.name);
    if (e.isSymbolicLink()) out.push(r);
    else if (e.isDirectory()) out.push(...listFiles(root, r));
    else out.push(r);
  }
  return out;
}
/** Copies a tree as it is: symlinks as symlinks (never followed), empty directories kept. */
function copyTree(src, dst) {
  fs.mkdirSync(dst, { recursive: true });
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    const s = path.join(src, e.name), d = path.join(dst, e.name);
    if (e.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(s), d);
    else if (e.isDirectory()) copyTree(s, d);
    else fs.copyFileSync(s, d);
  }
}
/** Sets a file's ctime to now without changing it (chmod to its own mode). */
const touch = (p) => { try { const st = fs.lstatSync(p); if (!st.isSymbolicLink()) fs.chmodSync(p, st.mode & 0o7777); } catch { /* best effort: a path that is gone keeps no age */ } };

async function runCase(name) {
  const dir = path.join(casesDir, name);
  const expect = JSON.parse(fs.readFileSync(path.join(dir, 'expect.json'), 'utf8'));
  const ages = expect.age_s || {};
  const maxAge = Math.max(1, ...Object.values(ages));
  const scale = MAX_SPAN_S / Math.max(maxAge, expect.stale_after_s);
  const window = expect.stale_after_s * scale;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cbvec-'));
  const ch = path.join(tmp, 'channel');
  const t0 = Date.now();
  copyTree(path.join(dir, 'channel'), ch);
  const all = listFiles(ch);
  const tEnd = t0 + maxAge * scale * 1000 + 300;
  const listed = Object.entries(ages).sort((a, b) => b[1] - a[1]);
  // When each aged file did arrive (its ctime once touched): a loaded machine wakes a timer late,
  // so a file may arrive a second or more after its moment.
  const arrived = new Map();
  for (const [rel, age] of listed) {
    await sleep(tEnd - age * scale * 1000 - Date.now());
    touch(path.join(ch, rel));
    try { arrived.set(rel, fs.lstatSync(path.join(ch, rel)).ctimeMs); } catch { /* gone: no arrival */ }
  }
  await sleep(tEnd - 150 - Date.now());
  for (const rel of all) if (!(rel in ages)) touch(path.join(ch, rel));
  await sleep(tEnd - Date.now());
  const evalAt = Date.now();
  let out;
  try {
    out = (await run(process.execPath, [claimboardBin, 'state', ch, '--json', '--now', new Date(evalAt).toISOString(), '--stale-after', window.toFixed(3)], { cwd: projectDir, encoding: 'utf8', timeout: 120000, maxBuffer: 64 << 20 })).stdout;
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    return [`${name}: CLI failed: ${(e.stderr || e.message || '').toString().split('\n').slice(-3).join(' ')}`];
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  let got;
  try { got = JSON.parse(out); } catch { return [`${name}: output is not JSON`]; }
  const errs = [];
  const cards = new Map((got.orders || []).map((c) => [c.order_id, c]));
  for (const [id, want] of Object.entries(expect.orders || {})) {
    const c = cards.get(id);
    if (!c) { errs.push(`${id}: missing`); continue; }
    for (const k of ['state', 'lane', 'holder']) if ((c[k] ?? null) !== (want[k] ?? null)) errs.push(`${id}.${k}: got ${c[k]} want ${want[k]}`);
    const gf = [...(c.flags || [])].sort().join(','), wf = [...(want.flags || [])].sort().join(',');
    if (gf !== wf) errs.push(`${id}.flags: got [${gf}] want [${wf}]`);
    if (want.reason !== undefined && c.reason !== want.reason) errs.push(`${id}.reason: got ${c.reason} want ${want.reason}`);
    if (want.since_age_s !== undefined) {
      const since = Date.parse(c.since);
      const gotAge = (evalAt - since) / 1000;
      // It became stale a window after the arrival of the file whose age is since_age_s plus the
      // window (the claim or heartbeat it went silent after): that file's real arrival, however
      // late its timer woke, plus the scaled window. A case whose since no aged file decides
      // cannot be checked without trusting this machine's timers, and says so.
      const decider = Object.keys(ages).find((rel) => ages[rel] === want.since_age_s + expect.stale_after_s && arrived.has(rel));
      if (decider === undefined) errs.push(`${id}.since: no aged file is ${want.since_age_s + expect.stale_after_s}s old (since_age_s + stale_after_s), the arrival it is measured from`);
      else {
        const wantAge = (evalAt - arrived.get(decider) - window * 1000) / 1000;
        if (!(Math.abs(gotAge - wantAge) <= Math.max(0.35, 0.1 * window))) errs.push(`${id}.since: ${gotAge.toFixed(2)}s ago, want ${wantAge.toFixed(2)}s (scaled, from ${decider}'s arrival, evaluated ${((evalAt - tEnd) / 1000).toFixed(2)}s late)`);
      }
    }
  }
  for (const p of expect.problems || []) {
    const hit = (got.problems || []).find((q) => q.path === p.path && q.problem === p.problem && (p.line === undefined || q.line === p.line));
    if (!hit) errs.push(`problem ${p.problem} at ${p.path}${p.line ? ':' + p.line : ''} not reported`);
  }
  for (const [file, want] of Object.entries(expect.ledger || {})) {
    const g = (got.ledger || {})[file];
    if (!g || g.entries !== want.entries || g.intact !== want.intact) errs.push(`ledger ${file}: got ${JSON.stringify(g)} want ${JSON.stringify(want)}`);
  }
  return errs.map((e) => `${name}: ${e}`);
}

if (!fs.existsSync(casesDir) || !fs.statSync(casesDir).isDirectory()) {
  console.error(`check-vectors: no cases folder at ${casesDir}`);
  process.exit(2);
}
// Cases whose expectation the real ferry contradicts: the repo's copy follows ferry and says why
// (conformance/vectors/ferry-differences.json); a shared copy that still expects the old reading
// is skipped here, said plainly, never silently.
const differences = JSON.parse(fs.readFileSync(path.join(repo, 'conformance/vectors/ferry-differences.json'), 'utf8'));
const isRepoCopy = path.resolve(casesDir) === path.resolve(repo, 'conformance/vectors');
const differs = (n) => {
  if (isRepoCopy || !differences[n]) return false;
  const ours = fs.readFileSync(path.join(repo, 'conformance/vectors', n, 'expect.json'), 'utf8');
  const theirs = fs.readFileSync(path.join(casesDir, n, 'expect.json'), 'utf8');
  return JSON.stringify(JSON.parse(ours)) !== JSON.stringify(JSON.parse(theirs));
};
const all = fs.readdirSync(casesDir).filter((n) => fs.existsSync(path.join(casesDir, n, 'expect.json')) && (!filter || n.includes(filter))).sort();
for (const n of all.filter(differs)) console.log(`${n}: skipped: the real ferry contradicts this copy's expectation; the repo's copy follows ferry (${differences[n]})`);
const names = all.filter((n) => !differs(n));
if (names.length === 0) {
  console.error(`check-vectors: no case (a folder with expect.json${filter ? ` matching "${filter}"` : ''}) in ${casesDir}`);
  process.exit(2);
}
console.log(`check-vectors: ${names.length} cases from ${casesDir} through \`claimboard state\` in ${projectDir}`);
let passed = 0;
const results = await Promise.all(names.map((n) => runCase(n)));
results.forEach((errs) => { if (errs.length === 0) passed++; else errs.forEach((e) => console.log(e)); });
console.log(`passed ${passed}/${names.length}`);
process.exit(passed === names.length ? 0 : 1);
