#!/usr/bin/env node
// Runs test/sync/scenario.ts inside a Syncthing pair and writes its report as JSON:
//
//   bash scripts/syncthing-pair.sh BASE -- node scripts/sync-scenario.mjs REPORT.json
//
// (syncthing-pair.sh exports STPAIR_A_DIR / STPAIR_B_DIR.) Like bin/claimboard.mjs, it runs
// the TypeScript sources through tsx and resolves the `server-only` marker to an empty module.
// The report is rewritten after each phase (a run cut short still leaves what it measured).
// Exit status: 0 when the scenario ran to its end (the test judges the numbers), 1 when it threw.
import fs from 'node:fs';
import { register } from 'node:module';
import { register as registerTsx } from 'tsx/esm/api';

register(
  'data:text/javascript,' +
    encodeURIComponent(
      "export async function resolve(s, c, next) { if (s === 'server-only') return { url: 'data:text/javascript,export{}', shortCircuit: true }; return next(s, c); }",
    ),
);
registerTsx();

const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/sync-scenario.mjs REPORT.json (inside syncthing-pair.sh BASE -- ...)');
  process.exit(2);
}
const { runScenario, pairEnvFrom } = await import('../test/sync/scenario.ts');
const t0 = Date.now();
const log = (line) => console.log(`[scenario +${((Date.now() - t0) / 1000).toFixed(2)}s] ${line}`);
const write = (report) => {
  fs.writeFileSync(`${out}.tmp`, JSON.stringify(report, null, 2) + '\n');
  fs.renameSync(`${out}.tmp`, out);
};
const report = await runScenario(pairEnvFrom(process.env), log, write);
write(report);
if (!report.ok) console.error(report.error);
process.exit(report.ok ? 0 : 1);
