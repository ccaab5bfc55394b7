#!/usr/bin/env node
// Runs vitest for one step of scripts/test.sh and says, at the end, which tests failed by name
// (a long run's failures are otherwise far above its last lines). A file with a failed test is
// run once more on its own: a test that fails twice fails the step; one that passes the second
// time is named as FLAKY (it still needs fixing: a timing assertion on a loaded 2-core machine)
// and the step passes. Usage: node scripts/run-vitest.mjs [vitest run arguments...]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const args = process.argv.slice(2);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-vitest-'));

/** Why each failed test failed on the first run (the first line of its message), by name. */
const reasons = new Map();
/** The first line of a failure message with its colour codes gone, at most 300 characters. */
const firstLine = (m) => (typeof m === 'string' ? stripVTControlCharacters(m).split('\n')[0].slice(0, 300) : '');

/** Runs vitest with `extra` arguments; returns its exit code and the failed tests by file. */
function run(extra, name) {
  const out = path.join(dir, `${name}.json`);
  const r = spawnSync('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...extra], { stdio: 'inherit' });
  const failed = new Map();
  let report = null;
  try {
    report = JSON.parse(fs.readFileSync(out, 'utf8'));
  } catch {
    // No report (vitest could not start): the exit code decides.
  }
  for (const file of report?.testResults ?? []) {
    const failedOnes = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
    const names = failedOnes.map((a) => a.fullName ?? a.title);
    for (const a of failedOnes) if (!reasons.has(a.fullName ?? a.title)) reasons.set(a.fullName ?? a.title, firstLine(a.failureMessages?.[0]));
    if (file.status === 'failed' || names.length > 0) failed.set(path.relative(process.cwd(), file.name), names.length > 0 ? names : ['(the file failed to load or run)']);
  }
  return { code: r.status ?? 1, failed, report: report !== null };
}

const first = run(args, 'first');
let code = first.code;
if (first.code !== 0) {
  console.log('\n--- vitest: failed on the first run:');
  for (const [file, names] of first.failed) for (const n of names) console.log(`  failed  ${file} > ${n}`);
  if (!first.report || first.failed.size === 0) {
    console.log('  (no report of which test failed: not run again)');
  } else {
    const files = [...first.failed.keys()];
    console.log(`\n--- vitest: running ${files.length} file(s) with a failure once more, alone: ${files.join(' ')}`);
    const second = run(files, 'second');
    console.log('\n--- vitest: the second run:');
    for (const [file, names] of first.failed) {
      const again = second.failed.get(file);
      for (const n of names) {
        const failedAgain = !second.report || (again !== undefined && (again.includes(n) || again[0] === '(the file failed to load or run)'));
        const why = reasons.get(n) ? `; first: ${reasons.get(n)}` : '';
        console.log(`  ${failedAgain ? 'FAILED ' : 'FLAKY  '} ${file} > ${n}${failedAgain ? ' (failed twice' : ' (failed, then passed alone: a timing test to fix'}${why})`);
      }
    }
    code = second.code;
  }
}
fs.rmSync(dir, { recursive: true, force: true });
process.exit(code);
