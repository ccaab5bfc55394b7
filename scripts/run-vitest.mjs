#!/usr/bin/env node
// Runs vitest for one step of scripts/test.sh and says, at the end, which tests failed by name
// and why (a long run's failures are otherwise far above its last lines). Nothing is run again:
// a test that fails once has failed. Usage: node scripts/run-vitest.mjs [vitest run arguments...]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const args = process.argv.slice(2);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-vitest-'));
const out = path.join(dir, 'report.json');
/** The first line of a failure message with its colour codes gone, at most 300 characters. */
const firstLine = (m) => (typeof m === 'string' ? stripVTControlCharacters(m).split('\n')[0].slice(0, 300) : '');

const r = spawnSync('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...args], { stdio: 'inherit' });
let report = null;
try {
  report = JSON.parse(fs.readFileSync(out, 'utf8'));
} catch {
  // No report (vitest could not start): the exit code decides.
}
const failed = [];
for (const file of report?.testResults ?? []) {
  const rel = path.relative(process.cwd(), file.name);
  const tests = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
  for (const a of tests) failed.push(`${rel} > ${a.fullName ?? a.title}: ${firstLine(a.failureMessages?.[0])}`);
  if (file.status === 'failed' && tests.length === 0) failed.push(`${rel} (the file failed to load or run): ${firstLine(file.message)}`);
}
if (failed.length > 0) {
  console.log('\n--- vitest: failed:');
  for (const f of failed) console.log(`  FAILED  ${f}`);
}
// The ten slowest files of this run, to keep the suite quick.
const files = (report?.testResults ?? []).map((f) => ({ name: path.relative(process.cwd(), f.name), s: (f.endTime - f.startTime) / 1000 })).sort((a, b) => b.s - a.s);
if (files.length > 0) {
  console.log('\n--- vitest: the slowest files:');
  for (const f of files.slice(0, 10)) console.log(`  ${f.s.toFixed(1).padStart(6)} s  ${f.name}`);
}
fs.rmSync(dir, { recursive: true, force: true });
process.exit(r.status ?? 1);
