#!/usr/bin/env node
// claimboard against the real ferry, through the CLI as a user runs it: for each case of
// conformance/ferry (a channel ferry 0.4.1 wrote, with ferry's own verdict `tasks.txt`, a
// person's reading `truth.json` and the CLI arguments `args.txt`), `npx claimboard state <copy>
// --json` must give every order ferry's state and holder, up to the two documented differences
// (Stale is decided by arrival here; blocked is ferry's Open), and put in Needs attention exactly
// the orders the person marked needs_human (conformance/ferry/README.md).
//
//   node scripts/check-ferry.mjs [project-dir] [case-dir...]
//
// With no case given, every case of conformance/ferry. A case may also be a channel folder X
// with X.tasks.txt (and X.truth.json) beside it, as make-channels.sh writes them. Prints one line
// per disagreement, then a summary; exits 0 when all agree, 1 otherwise, 2 on bad usage.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '..');
const [projectArg, ...caseArgs] = process.argv.slice(2);
const projectDir = path.resolve(projectArg ?? repo);
const root = path.join(repo, 'conformance/ferry');
const cases = caseArgs.length
  ? caseArgs.map((c) => path.resolve(c))
  : fs.readdirSync(root).filter((n) => fs.existsSync(path.join(root, n, 'tasks.txt'))).sort().map((n) => path.join(root, n));
if (cases.length === 0) {
  console.error('check-ferry: no case found');
  process.exit(2);
}
// ferry's states and the claimboard states that read the same: the table the core reads too.
const FERRY_STATES = JSON.parse(fs.readFileSync(path.join(repo, 'lib/ledger/ferry-states.json'), 'utf8'));
const verdict = (text) => {
  const out = new Map();
  for (const line of text.split('\n')) {
    const m = /^ {2}(\S+)\s+(\S+)\s+(\w+)/.exec(line);
    if (m) out.set(m[1], { holder: m[2] === '-' ? null : m[2].toLowerCase(), state: m[3] });
  }
  return out;
};
// The project's own command (package.json `bin`), run by node directly: what `npx claimboard`
// runs, without npx's second or so of start-up per case.
const claimboardBin = path.join(projectDir, JSON.parse(fs.readFileSync(path.join(projectDir, 'package.json'), 'utf8')).bin.claimboard);
const run = promisify(execFile);
const caseFile = (c, f) => (fs.existsSync(path.join(c, 'channel')) ? path.join(c, f) : `${c.replace(/\/+$/, '')}.${f}`);

let bad = 0;
let orders = 0;
let agree = 0;
let shown = 0;
let wanted = 0;
let right = 0;
/** `claimboard state --json` on a fresh copy of the case's channel: the parsed answer, or the reason it failed. */
async function stateOf(c) {
  const src = fs.existsSync(path.join(c, 'channel')) ? path.join(c, 'channel') : c;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-ferry-'));
  const copy = path.join(tmp, 'channel');
  fs.cpSync(src, copy, { recursive: true, verbatimSymlinks: true });
  const argsFile = path.join(c, 'args.txt');
  const extra = fs.existsSync(argsFile)
    ? fs.readFileSync(argsFile, 'utf8').trim().split(/\s+/).filter(Boolean).map((a) => (a.startsWith('@') ? path.join(c, a.slice(1)) : a))
    : [];
  try {
    const { stdout } = await run(process.execPath, [claimboardBin, 'state', copy, '--json', ...extra], { cwd: projectDir, encoding: 'utf8', maxBuffer: 64 << 20 });
    return { state: JSON.parse(stdout) };
  } catch (e) {
    return { failed: String(e.stderr || e.message).trim().split('\n').pop() };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// One case per core at a time: each is a short process of its own.
const answers = new Array(cases.length);
let next = 0;
await Promise.all(
  Array.from({ length: Math.max(1, Math.min(os.availableParallelism(), cases.length)) }, async () => {
    while (next < cases.length) {
      const k = next++;
      answers[k] = await stateOf(cases[k]);
    }
  }),
);

for (const [k, c] of cases.entries()) {
  const name = path.basename(c);
  const { state, failed } = answers[k];
  if (failed !== undefined) {
    console.log(`${name}: claimboard state failed: ${failed}`);
    bad++;
    continue;
  }
  const cards = new Map(state.orders.map((o) => [o.order_id, o]));
  for (const [id, w] of verdict(fs.readFileSync(caseFile(c, 'tasks.txt'), 'utf8'))) {
    orders++;
    const got = cards.get(id);
    if (got && (FERRY_STATES[w.state]?.claimboard ?? []).includes(got.state) && (got.holder ?? null) === w.holder) agree++;
    else {
      bad++;
      console.log(`${name} ${id}: ferry ${w.state}/${w.holder ?? '-'}, claimboard ${got ? `${got.state}/${got.holder ?? '-'}` : 'missing'}`);
    }
  }
  const truthFile = caseFile(c, 'truth.json');
  if (!fs.existsSync(truthFile)) continue;
  for (const [id, t] of Object.entries(JSON.parse(fs.readFileSync(truthFile, 'utf8')))) {
    if (id.startsWith('_')) continue;
    const got = cards.get(id);
    const inAttention = got?.lane === 'attention';
    const needed = t.operator_view === 'needs_human';
    if (inAttention) shown++;
    if (needed) wanted++;
    if (inAttention && needed) right++;
    const ok = needed
      ? inAttention || (t.or_stale === true && got?.lane === 'stale')
      : t.operator_view === 'stale'
        ? got?.lane === 'stale' || got?.lane === 'running'
        : !inAttention;
    if (!ok) {
      bad++;
      console.log(`${name} ${id}: ${needed ? `needs a human (${t.why ?? ''}) but shown in ${got?.lane}` : `false alarm: ${(got?.alerts ?? []).map((a) => a.text).join('; ')}`}`);
    }
  }
}
console.log(`check-ferry: ${cases.length} cases; ferry agreement ${agree}/${orders} orders; Needs attention ${right} true of ${shown} shown, ${wanted} wanted`);
process.exit(bad ? 1 : 0);
