import 'server-only';
/**
 * The embedded demo channel: a ferryman channel whose
 * board, right after it is written, has cards in every lane a newcomer should see, and whose
 * identities' seeds sit OUTSIDE the synced folder so the dashboard can offer the operator key
 * for import.
 *
 * Layout on disk, for a channel at `<parent>/<name>`:
 *
 * ```text
 * <parent>/<name>/                 the channel root (what Syncthing would carry)
 * <parent>/keys/<identity>.key     hex seed + newline, mode 0600 (never in the channel)
 * <parent>/<name>.fleet.json       the demo manifest: which runs the simulated fleet keeps alive
 * ```
 *
 * Staleness is measured on file ctimes, which cannot be backdated: every file
 * written here arrives "now". The runs meant to look dead (ghost's, a lapsed run of fang's, a
 * claim of nebra's that never heartbeated) are listed in the manifest as `abandoned`: the
 * simulated fleet (fleet.ts) never touches them, so they turn stale once `stale_after` has
 * passed, while the runs it keeps heartbeating stay in Running. Without a fleet, every claimed
 * order goes stale after `stale_after`.
 *
 * The story is written as the real ferry would have written it (ferry.ts): a worker's start
 * releases its own dead runs (`worker died mid-run`, leaving the heartbeat) and its orphans
 * (`orphaned at startup`, addressed orders included, before it ever claimed them); a run that
 * ends removes its heartbeat; a run's start acknowledges the order's interrupts, and a kill or
 * pause deletes the worker's own claim; the orchestrator's `ferry channel retire` releases
 * (`retired`) every order the retired name holds or is addressed to with no result.
 *
 * Who is in it is cast.ts; the manifest the fleet reads is manifest.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { demoManifestPath } from './manifest-path';
import { decisionTarget } from '../ledger/targets';
import { channelRetire, claimOrder, endRun, readFerryView, startRun, submitResult, workerStart } from './ferry';
import { generateSeed, publicKeyOf, readKeyFile, writeKeyFile, type Identity } from './identity';
import {
  writeAck,
  writeAgent,
  writeGiveup,
  writeHeartbeat,
  writeInterrupt,
  writeOrder,
  writeRelease,
  writeReopen,
  writeRetirement,
  writeReview,
  type OrderFields,
  type RunFields,
} from './write';
import { appendLedgerLine } from './ledger-line';
import {
  DEMO_CLOCK_OFFSETS_MS,
  DEMO_OPERATOR,
  DEMO_ORCHESTRATOR,
  DEMO_RETIRED,
  DEMO_ROLES,
  DEMO_SILENT,
  DEMO_WORKERS,
  demoKeysDir,
} from './cast';
import { writeDemoManifest, type DemoManifest, type DemoRun, type RunFate } from './manifest';

const MIN = 60_000;

/** Where a demo channel's pieces live and whether this call created it. */
export interface DemoChannel {
  /** Absolute channel root. */
  readonly dir: string;
  /** Absolute `<parent>/keys`. */
  readonly keysDir: string;
  /** The operator's name (`ops`). */
  readonly operator: string;
  /** Absolute path of the operator's seed file, or null when there is none (a channel not made here). */
  readonly operatorKeyPath: string | null;
  /** Absolute path of the manifest (may not exist for a channel not made here). */
  readonly manifestPath: string;
  /** True when this call wrote the channel; false when it was already there. */
  readonly created: boolean;
  /** Orders written (0 when not created). */
  readonly orders: number;
}

function looksLikeChannel(dir: string): boolean {
  const isDir = (p: string) => {
    try {
      return fs.lstatSync(p).isDirectory();
    } catch {
      return false;
    }
  };
  return isDir(path.join(dir, 'tasks')) || isDir(path.join(dir, 'agents'));
}

/** Options of {@link writeDemoChannel}. */
export interface DemoOptions {
  /** "Now" of the story on this machine's clock, ms since the epoch (default Date.now()); writer times are set before it. */
  readonly nowMs?: number;
}

/**
 * Creates the demo channel at `dir` if it does not exist (or is an empty folder), else leaves
 * it alone. Returns where things are; `created` says which happened. Throws Error when `dir`
 * exists, is not empty, and is not a channel (it is never written into).
 */
export function ensureDemoChannel(dir: string, opts: DemoOptions = {}): DemoChannel {
  const abs = path.resolve(dir);
  if (fs.existsSync(abs)) {
    if (looksLikeChannel(abs)) {
      const key = path.join(demoKeysDir(abs), `${DEMO_OPERATOR}.key`);
      return {
        dir: abs,
        keysDir: demoKeysDir(abs),
        operator: DEMO_OPERATOR,
        operatorKeyPath: fs.existsSync(key) ? key : null,
        manifestPath: demoManifestPath(abs),
        created: false,
        orders: 0,
      };
    }
  }
  return writeDemoChannel(abs, opts);
}

/** One step of the story, `t` minutes before now (local clock), run in time order. */
interface Step {
  readonly t: number;
  readonly run: () => void;
}

/**
 * Writes the demo channel at `dir`: a roster of `ops` (operator) and the
 * orchestrator and the workers fang, wisp, nebra, kestrel, ghost (silent) and moth (retired),
 * 39 orders whose cards
 * fill every lane, signed records, and ledger lines. Seeds are generated fresh into
 * `<parent>/keys/` (an existing valid seed file there is reused, so resetting the demo by
 * deleting the channel keeps the operator key already imported in a browser). Writer times are
 * set in the past of `opts.nowMs` (plus each identity's clock skew); every file arrives now.
 * Throws Error when `dir` exists and is not empty.
 */
export function writeDemoChannel(dir: string, opts: DemoOptions = {}): DemoChannel {
  const abs = path.resolve(dir);
  if (fs.existsSync(abs) && fs.readdirSync(abs).length > 0) throw new Error(`${abs} exists and is not empty; the demo is written only into a new folder`);
  const nowMs = opts.nowMs ?? Date.now();
  const keysDir = demoKeysDir(abs);
  fs.mkdirSync(abs, { recursive: true });
  fs.mkdirSync(keysDir, { recursive: true, mode: 0o700 });

  // --- identities: seeds outside the channel, roster inside it
  const names = [DEMO_OPERATOR, DEMO_ORCHESTRATOR, ...DEMO_WORKERS, ...DEMO_SILENT, ...DEMO_RETIRED];
  const ids: Record<string, Identity> = {};
  for (const name of names) {
    const file = path.join(keysDir, `${name}.key`);
    let seedHex: string;
    try {
      seedHex = readKeyFile(file);
    } catch {
      seedHex = generateSeed();
      if (fs.existsSync(file)) throw new Error(`${file} exists but is not a seed; move it away to write the demo`);
      writeKeyFile(file, seedHex);
    }
    ids[name] = { name, seedHex, clockOffsetMs: DEMO_CLOCK_OFFSETS_MS[name] ?? 0 };
    const r = DEMO_ROLES[name] ?? { role: 'worker', capabilities: [] };
    writeAgent(abs, { name, role: r.role, capabilities: r.capabilities, publicKey: publicKeyOf(ids[name]) });
  }
  const who = (name: string): Identity => {
    const i = ids[name];
    if (!i) throw new Error(`internal: no demo identity ${name}`);
    return i;
  };
  const ops = who(DEMO_OPERATOR);
  const orchestrator = who(DEMO_ORCHESTRATOR);
  const at = (t: number) => ({ atMs: nowMs - t * MIN });
  const newRun = (): RunFields => ({ run: randomBytes(16).toString('hex'), pid: 2000 + randomBytes(2).readUInt16BE(0) });

  const steps: Step[] = [];
  const step = (t: number, run: () => void) => steps.push({ t, run });
  const runs: DemoRun[] = [];
  const abandoned: string[] = [];
  let orderCount = 0;

  // --- building blocks, each one step with its ledger line
  const issue = (t: number, o: OrderFields, issuer: Identity = ops) =>
    step(t, () => {
      writeOrder(abs, issuer, o, at(t));
      orderCount++;
      appendLedgerLine(abs, issuer, { kind: 'order', summary: `issued order ${o.id}`, reference: o.id }, at(t));
    });
  /** ferry's claim_order and the worker's ledger line (ferry.ts). */
  const claim = (t: number, agent: string, id: string) => step(t, () => claimOrder(abs, who(agent), id, at(t)));
  const beat = (t: number, agent: string, id: string, r: RunFields) => step(t, () => writeHeartbeat(abs, who(agent), id, r, at(t)));
  /** A finished run: its heartbeat removed, the signed result, the ledger line (ferry.ts). */
  const result = (t: number, agent: string, id: string, rev: number, payload: unknown) =>
    step(t, () => submitResult(abs, who(agent), id, rev, payload, at(t)));
  /** A worker (re)starts: ferry's recovery of its own dead runs and orphans (ferry.ts). */
  const start = (t: number, agent: string) => step(t, () => void workerStart(abs, who(agent), at(t)));
  /** A run starts: the order's interrupts are acknowledged; a kill or pause deletes the claim (ferry.ts). */
  const runStart = (t: number, agent: string, id: string) =>
    step(t, () => void startRun(abs, who(agent), id, readFerryView(abs).views.get(id), at(t)));
  /** `ferry channel interrupt` by the operator: the signed interrupt and its ledger line. */
  const interrupt = (t: number, id: string, action: 'kill' | 'pause' | 'steer', note: string) =>
    step(t, () => {
      writeInterrupt(abs, ops, id, action, note, at(t));
      appendLedgerLine(abs, ops, { kind: 'interrupt', summary: `${action} interrupt on ${id}`, reference: id }, at(t));
    });
  const review = (t: number, id: string, rev: number, accepted: boolean, notes?: string) =>
    step(t, () => {
      writeReview(abs, ops, id, rev, accepted, notes, at(t));
      appendLedgerLine(
        abs,
        ops,
        { kind: 'review', summary: `${accepted ? 'accepted' : 'sent back'} ${id} revision ${rev}`, reference: id },
        at(t),
      );
    });
  const release = (t: number, id: string, agent: string, reason: string) =>
    step(t, () => {
      writeRelease(abs, ops, id, agent, reason, at(t));
      appendLedgerLine(abs, ops, { kind: 'release', summary: `released ${agent}'s claim on ${id} (${reason})`, reference: id }, at(t));
    });
  /** A run the fleet adopts: claim, a heartbeat now. */
  const live = (id: string, agent: string, fate: RunFate) => {
    const r = newRun();
    beat(0, agent, id, r);
    runs.push({ order_id: id, agent, run: r.run, pid: r.pid, fate });
  };

  const api = 'acme/atlas-api';
  const web = 'acme/atlas-web';
  const db = 'acme/atlas-db';
  const cli = 'acme/atlas-cli';
  const infra = 'acme/infra';
  const sha = () => randomBytes(4).toString('hex').slice(0, 7);

  // ===== Done: done, accepted, closed =====
  issue(360, { id: 'build-api-1031', project_id: 'atlas', payload: { task: 'Build and push the API image for 2.3.2', repo: api, branch: 'release/2.3' } });
  claim(355, 'fang', 'build-api-1031');
  beat(354, 'fang', 'build-api-1031', newRun());
  result(330, 'fang', 'build-api-1031', 1, { summary: 'image pushed: registry.acme.dev/atlas-api:2.3.2', commit: sha(), duration_s: 1412 });

  issue(350, { id: 'deps-web-870', project_id: 'atlas', payload: { task: 'Bump React and Vite, fix the type errors', repo: web } });
  claim(345, 'wisp', 'deps-web-870');
  result(320, 'wisp', 'deps-web-870', 1, { summary: 'react 19.3, vite 8.3; 14 type errors fixed', commit: sha() });

  issue(345, { id: 'schema-api-1027', project_id: 'atlas', payload: { task: 'Add the invoices.currency column with a backfill-safe default', repo: db } });
  claim(340, 'nebra', 'schema-api-1027');
  result(300, 'nebra', 'schema-api-1027', 1, { summary: 'migration 0142 applied on staging', commit: sha(), migration: '0142_invoice_currency' });

  issue(300, { id: 'lint-web-877', project_id: 'atlas', payload: { task: 'Turn on noUncheckedIndexedAccess and fix the fallout', repo: web } });
  claim(298, 'kestrel', 'lint-web-877');
  result(280, 'kestrel', 'lint-web-877', 1, { summary: '63 sites fixed, no behaviour change', commit: sha() });

  issue(290, { id: 'test-api-1029', project_id: 'atlas', requires_review: true, payload: { task: 'Cover the refund endpoints with contract tests', repo: api } });
  claim(285, 'nebra', 'test-api-1029');
  result(250, 'nebra', 'test-api-1029', 1, { summary: '38 contract tests, all green', commit: sha(), tests: { passed: 38, failed: 0 } });
  review(240, 'test-api-1029', 1, true, 'good coverage');

  issue(280, { id: 'docs-sdk-212', project_id: 'atlas', requires_review: true, payload: { task: 'Rewrite the SDK quickstart for the v2 client', repo: 'acme/atlas-sdk' } });
  claim(275, 'kestrel', 'docs-sdk-212');
  result(230, 'kestrel', 'docs-sdk-212', 1, { summary: 'quickstart rewritten', commit: sha() });
  review(220, 'docs-sdk-212', 1, false, 'the examples still use the v1 client');
  result(190, 'kestrel', 'docs-sdk-212', 2, { summary: 'examples ported to the v2 client', commit: sha() });
  review(180, 'docs-sdk-212', 2, true);

  issue(270, { id: 'bench-api-1018', project_id: 'atlas', payload: { task: 'Benchmark the pricing service under 2k rps', repo: api } });
  claim(265, 'kestrel', 'bench-api-1018');
  {
    const r = newRun();
    beat(264, 'kestrel', 'bench-api-1018', r);
    let digest = '';
    step(200, () => {
      endRun(abs, who('kestrel'), 'bench-api-1018');
      digest = writeGiveup(abs, who('kestrel'), 'bench-api-1018', { run: r.run, reason: 'benchmark host unreachable after 4 attempts', attempts: 4 }, at(200)).digest;
      appendLedgerLine(abs, who('kestrel'), { kind: 'giveup', summary: 'gave up bench-api-1018', reference: 'bench-api-1018' }, at(200));
    });
    step(170, () => {
      writeAck(abs, ops, 'bench-api-1018', decisionTarget({ kind: 'giveup', digest }), 'bench host is gone; tracked in infra-77', at(170));
      appendLedgerLine(abs, ops, { kind: 'ack', summary: "acknowledged kestrel's give-up on bench-api-1018", reference: 'bench-api-1018' }, at(170));
    });
  }

  // ===== Review: awaiting_review =====
  issue(200, { id: 'feat-web-881', project_id: 'atlas', requires_review: true, payload: { task: 'Saved filters on the invoices page', repo: web } });
  claim(195, 'wisp', 'feat-web-881');
  result(60, 'wisp', 'feat-web-881', 1, { summary: 'saved filters with URL state', commit: sha(), pr: 'acme/atlas-web#881' });

  issue(180, { id: 'fix-api-1036', project_id: 'atlas', requires_review: true, payload: { task: 'Fix the double charge on retried webhooks', repo: api } });
  claim(175, 'nebra', 'fix-api-1036');
  result(45, 'nebra', 'fix-api-1036', 1, { summary: 'idempotency key on webhook retries', commit: sha(), pr: 'acme/atlas-api#1036' });

  issue(240, { id: 'refactor-cli-64', project_id: 'atlas', requires_review: true, payload: { task: 'Move argument parsing to commander', repo: cli } });
  claim(235, 'kestrel', 'refactor-cli-64');
  result(150, 'kestrel', 'refactor-cli-64', 1, { summary: 'parser ported', commit: sha() });
  review(140, 'refactor-cli-64', 1, false, 'split the parser change from the flag renames');
  result(30, 'kestrel', 'refactor-cli-64', 2, { summary: 'two commits: port, then renames', commit: sha() });

  // ===== Running: claimed (kept alive by the fleet), changes_requested =====
  issue(90, { id: 'build-api-1042', project_id: 'atlas', payload: { task: 'Build and push the API image for 2.4.0', repo: api, branch: 'release/2.4' } });
  claim(40, 'fang', 'build-api-1042');
  live('build-api-1042', 'fang', 'finish');

  issue(80, { id: 'test-web-884', project_id: 'atlas', payload: { task: 'Run the Playwright suite against staging', repo: web } });
  claim(35, 'wisp', 'test-web-884');
  live('test-web-884', 'wisp', 'finish');

  issue(120, { id: 'migrate-db-311', project_id: 'atlas', requires_review: true, payload: { task: 'Partition the events table by month', repo: db } });
  claim(50, 'nebra', 'migrate-db-311');
  live('migrate-db-311', 'nebra', 'finish');

  issue(100, { id: 'perf-api-1039', project_id: 'atlas', payload: { task: 'Profile the p99 regression in /quotes', repo: api } });
  claim(30, 'kestrel', 'perf-api-1039');
  live('perf-api-1039', 'kestrel', 'giveup');

  issue(210, { id: 'i18n-web-879', project_id: 'atlas', requires_review: true, payload: { task: 'German and French strings for checkout', repo: web } });
  claim(205, 'wisp', 'i18n-web-879');
  result(100, 'wisp', 'i18n-web-879', 1, { summary: 'de and fr added', commit: sha() });
  review(90, 'i18n-web-879', 1, false, 'German plurals are missing in the cart summary');
  live('i18n-web-879', 'wisp', 'finish');

  issue(260, { id: 'release-notes-58', project_id: 'atlas', payload: { task: 'Draft the 2.4 release notes', repo: 'acme/atlas-docs' } });
  claim(255, 'fang', 'release-notes-58');
  beat(250, 'fang', 'release-notes-58', newRun());
  result(200, 'fang', 'release-notes-58', 1, { summary: 'draft in docs/releases/2.4.md', commit: sha() });
  step(25, () => {
    const target = decisionTarget({ kind: 'result', revision: 1 });
    writeReopen(abs, ops, 'release-notes-58', target, 'the notes miss the API break in /quotes', at(25));
    appendLedgerLine(abs, ops, { kind: 'reopen', summary: `reopened release-notes-58 (${target})`, reference: 'release-notes-58' }, at(25));
  });
  live('release-notes-58', 'fang', 'finish');

  // ===== Stale (once stale_after passes): the fleet never touches these =====
  issue(150, { id: 'index-search-502', project_id: 'atlas', payload: { task: 'Reindex products with the new analyzer', repo: 'acme/atlas-search' } });
  claim(140, 'ghost', 'index-search-502');
  beat(20, 'ghost', 'index-search-502', newRun());
  abandoned.push('index-search-502/ghost');

  issue(130, { id: 'cache-api-1040', project_id: 'atlas', payload: { task: 'Put the FX rates behind a 60 s cache', repo: api } });
  claim(125, 'ghost', 'cache-api-1040');
  beat(20, 'ghost', 'cache-api-1040', newRun());
  abandoned.push('cache-api-1040/ghost');

  issue(110, { id: 'e2e-web-882', project_id: 'atlas', payload: { task: 'Fix the flaky login e2e on Safari', repo: web } });
  claim(100, 'fang', 'e2e-web-882');
  beat(15, 'fang', 'e2e-web-882', newRun());
  abandoned.push('e2e-web-882/fang');

  issue(95, { id: 'backfill-db-309', project_id: 'atlas', payload: { task: 'Backfill invoices.currency for 2019-2022', repo: db } });
  claim(22, 'nebra', 'backfill-db-309');
  abandoned.push('backfill-db-309/nebra');

  // ===== Needs attention =====
  // a give-up
  issue(170, { id: 'flaky-test-web-880', project_id: 'atlas', payload: { task: 'Stabilise checkout.spec.ts', repo: web } });
  claim(165, 'kestrel', 'flaky-test-web-880');
  {
    const r = newRun();
    beat(60, 'kestrel', 'flaky-test-web-880', r);
    step(55, () => {
      endRun(abs, who('kestrel'), 'flaky-test-web-880');
      writeGiveup(abs, who('kestrel'), 'flaky-test-web-880', { run: r.run, reason: 'run ceiling reached: 3 attempts, checkout.spec.ts still fails 1 in 6', attempts: 3 }, at(55));
      appendLedgerLine(abs, who('kestrel'), { kind: 'giveup', summary: 'gave up flaky-test-web-880', reference: 'flaky-test-web-880' }, at(55));
    });
    abandoned.push('flaky-test-web-880/kestrel');
  }
  // a double run: fang holds (earliest claim), kestrel runs it too
  issue(140, { id: 'ingest-api-1035', project_id: 'atlas', payload: { task: 'Ingest the October bank statements', repo: api } });
  claim(70, 'fang', 'ingest-api-1035');
  claim(65, 'kestrel', 'ingest-api-1035');
  live('ingest-api-1035', 'fang', 'linger');
  live('ingest-api-1035', 'kestrel', 'linger');
  // a late result: wisp's claim was released, its result arrived anyway
  issue(230, { id: 'export-csv-1033', project_id: 'atlas', payload: { task: 'CSV export for the ledger report', repo: api } });
  claim(225, 'wisp', 'export-csv-1033');
  beat(180, 'wisp', 'export-csv-1033', newRun());
  release(120, 'export-csv-1033', 'wisp', 'requeued: heartbeat stopped 60 min ago');
  result(15, 'wisp', 'export-csv-1033', 1, { summary: 'export done', commit: sha() });
  abandoned.push('export-csv-1033/wisp');
  // a retired name: moth delivered one order, died mid-run on another (claim and heartbeat left),
  // and an order was addressed to it after; the orchestrator ran `ferry channel retire --agent
  // moth` (a release `retired` of each order moth holds or is addressed to with no result: the
  // claimed one goes back to the pool, the addressed one stays offered to moth for ever), then ops
  // recorded the retirement in claimboard (its extension: the Agents page shows moth retired).
  issue(220, { id: 'audit-deps-215', project_id: 'infra', requires_review: true, payload: { task: 'Audit third-party licences', repo: infra } });
  claim(215, 'moth', 'audit-deps-215');
  result(130, 'moth', 'audit-deps-215', 1, { summary: '3 GPL transitive deps flagged', commit: sha() });
  issue(210, { id: 'rotate-keys-77', project_id: 'infra', payload: { task: 'Rotate the staging TLS keys', repo: infra } });
  claim(205, 'moth', 'rotate-keys-77');
  beat(200, 'moth', 'rotate-keys-77', newRun());
  issue(190, { id: 'pentest-vpn-79', project_id: 'infra', assigned_to: 'moth', payload: { task: 'Pen-test the staging VPN', repo: infra } }, orchestrator);
  step(110, () => void channelRetire(abs, orchestrator, 'moth', at(110)));
  step(105, () => {
    writeRetirement(abs, ops, 'moth', 'machine rebuilt; identity replaced', at(105));
    appendLedgerLine(abs, ops, { kind: 'retire', summary: 'retired moth', reference: 'moth' }, at(105));
  });
  // a kill acknowledged, the order still offered to its assignee: addressed to ghost, killed by
  // ops; ghost's next run of it acknowledged the kill and deleted its claim, then ghost's machine
  // went silent. ferry has no way to withdraw an order: ghost's next poll runs it again.
  issue(32, { id: 'purge-cdn-516', project_id: 'infra', assigned_to: 'ghost', payload: { task: 'Purge the CDN cache for the old asset paths', repo: infra } }, orchestrator);
  interrupt(26, 'purge-cdn-516', 'kill', 'Not wanted after all: the old paths are served from the new bucket.');
  claim(21, 'ghost', 'purge-cdn-516');
  runStart(21, 'ghost', 'purge-cdn-516');
  // a released assignee: assigned to nebra, whose claim the operator released
  issue(75, { id: 'hotfix-api-1041', project_id: 'atlas', assigned_to: 'nebra', payload: { task: 'Hotfix: rounding in EUR invoices', repo: api, branch: 'hotfix/2.3.3' } });
  claim(72, 'nebra', 'hotfix-api-1041');
  beat(70, 'nebra', 'hotfix-api-1041', newRun());
  release(28, 'hotfix-api-1041', 'nebra', 'requeued: stale for 25 min');
  abandoned.push('hotfix-api-1041/nebra');

  // ===== What a healthy ferry fleet leaves behind (all Done, none needs a person) =====
  // fang's worker died mid-run on docs-api-1030 (claim and heartbeat left); its next start
  // released the dead run ("worker died mid-run", the heartbeat stays for ever) and its orphan
  // sdk-gen-214, addressed to it while it was down ("orphaned at startup", before it ever claimed
  // it); it then ran sdk-gen-214 all the same (ferry's holder is the assignee), and nebra took
  // docs-api-1030.
  issue(165, { id: 'docs-api-1030', project_id: 'atlas', payload: { task: 'Regenerate the API reference docs', repo: api } });
  claim(160, 'fang', 'docs-api-1030');
  {
    const r = newRun();
    beat(159, 'fang', 'docs-api-1030', r);
    beat(130, 'fang', 'docs-api-1030', r); // its last: the worker died here
  }
  issue(125, { id: 'sdk-gen-214', project_id: 'atlas', assigned_to: 'fang', payload: { task: 'Regenerate the SDK from the 2.4 OpenAPI spec', repo: 'acme/atlas-sdk' } }, orchestrator);
  start(110, 'fang');
  claim(109, 'fang', 'sdk-gen-214');
  runStart(109, 'fang', 'sdk-gen-214');
  beat(108, 'fang', 'sdk-gen-214', newRun());
  result(92, 'fang', 'sdk-gen-214', 1, { summary: 'SDK regenerated from openapi 2.4.0', commit: sha() });
  claim(105, 'nebra', 'docs-api-1030');
  runStart(105, 'nebra', 'docs-api-1030');
  beat(104, 'nebra', 'docs-api-1030', newRun());
  result(85, 'nebra', 'docs-api-1030', 1, { summary: 'reference docs regenerated', commit: sha() });
  // a steer, acknowledged when wisp's run started, folded into the run: done.
  issue(140, { id: 'rename-crate-63', project_id: 'atlas', payload: { task: 'Rename the atlas-cli crate', repo: cli } });
  interrupt(135, 'rename-crate-63', 'steer', 'Call it atlas, not atlas-cli-core.');
  claim(130, 'wisp', 'rename-crate-63');
  runStart(130, 'wisp', 'rename-crate-63');
  beat(129, 'wisp', 'rename-crate-63', newRun());
  result(100, 'wisp', 'rename-crate-63', 1, { summary: 'crate renamed to atlas', commit: sha() });

  // ===== Queue: blocked, open, offered =====
  issue(85, { id: 'deploy-api-1043', project_id: 'atlas', depends_on: ['build-api-1042'], payload: { task: 'Deploy atlas-api 2.4.0 to production', repo: infra } });
  issue(78, { id: 'deploy-web-885', project_id: 'atlas', depends_on: ['test-web-884', 'feat-web-881'], payload: { task: 'Deploy atlas-web with saved filters', repo: infra } });
  issue(70, { id: 'release-2.4', project_id: 'atlas', depends_on: ['index-search-502', 'deploy-api-1043'], payload: { task: 'Tag and announce 2.4', repo: api } });
  issue(20, { id: 'perf-web-886', project_id: 'atlas', payload: { task: 'Cut the invoices page bundle under 200 kB', repo: web } });
  issue(12, { id: 'docs-api-1044', project_id: 'atlas', payload: { task: 'Document the /quotes rate limits', repo: api } });
  issue(10, { id: 'cleanup-ci-90', project_id: 'infra', depends_on: ['schema-api-1027'], payload: { task: 'Drop the pre-0142 schema check from CI', repo: infra } });
  issue(18, { id: 'tune-db-312', project_id: 'atlas', assigned_to: 'kestrel', payload: { task: 'Tune autovacuum for the events table', repo: db } });
  issue(16, { id: 'backup-db-313', project_id: 'atlas', assigned_to: 'ghost', payload: { task: 'Verify last night\'s backup restore', repo: db } });

  // Run the story in time order (stable: same-minute steps keep their written order).
  steps
    .map((s, i) => ({ s, i }))
    .sort((a, b) => b.s.t - a.s.t || a.i - b.i)
    .forEach(({ s }) => s.run());

  const manifest: DemoManifest = {
    version: 1,
    operator: DEMO_OPERATOR,
    workers: [...DEMO_WORKERS],
    silent: [...DEMO_SILENT],
    retired: [...DEMO_RETIRED],
    clock_offsets_ms: { ...DEMO_CLOCK_OFFSETS_MS },
    runs,
    abandoned,
    down: {},
  };
  writeDemoManifest(abs, manifest);

  return {
    dir: abs,
    keysDir,
    operator: DEMO_OPERATOR,
    operatorKeyPath: path.join(keysDir, `${DEMO_OPERATOR}.key`),
    manifestPath: demoManifestPath(abs),
    created: true,
    orders: orderCount,
  };
}
