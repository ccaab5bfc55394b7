/**
 * docs/alert-rules.yml, the example alerting rules for Alertmanager users: YAML that parses
 * (the `yaml` package, duplicate keys refused), in the shape Prometheus loads (a rule file's
 * groups and rules, no unknown keys, durations and names as Prometheus spells them), with the
 * rules an operator needs, and naming only metrics a real scrape of GET /metrics exposes.
 * (promtool is not a dependency; `promtool check rules docs/alert-rules.yml` checks it fully.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { openWriter } from '@/lib/index/db';
import { Indexer } from '@/lib/index/indexer';
import { metricsFigures, metricsText } from '@/lib/api/metrics';
import { parseMetrics } from '@/test/support/prometheus';
import { VECTORS_DIR } from '@/test/support/vectors';

const FILE = path.resolve(import.meta.dirname, '../../docs/alert-rules.yml');

/** Prometheus durations: units from largest to smallest, each at most once (`1h30m`, `5m`). */
const DURATION = /^(\d+y)?(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?(\d+ms)?$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const Rule = z.strictObject({
  alert: z.string().regex(LABEL_NAME),
  expr: z.string().min(1),
  for: z.string().regex(DURATION).refine((d) => d !== '').optional(),
  keep_firing_for: z.string().regex(DURATION).optional(),
  labels: z.record(z.string().regex(LABEL_NAME), z.string()).optional(),
  annotations: z.record(z.string().regex(LABEL_NAME), z.string()).optional(),
});
const RuleFile = z.strictObject({
  groups: z.array(z.strictObject({ name: z.string().min(1), interval: z.string().regex(DURATION).optional(), limit: z.number().int().optional(), rules: z.array(Rule).min(1) })).min(1),
});

const rules = () => RuleFile.parse(parse(fs.readFileSync(FILE, 'utf8'), { uniqueKeys: true, strict: true }));

let tmp = '';
afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Every family of a real scrape, after a live pass (so the index lag families are there too). */
async function exposedNames(): Promise<Set<string>> {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-rules-'));
  const root = path.join(tmp, 'channel');
  fs.cpSync(path.join(VECTORS_DIR, '17-bad-signatures', 'channel'), root, { recursive: true });
  const db = openWriter(path.join(tmp, 'index.sqlite'));
  const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, workers: 0 });
  await ix.start();
  const order = path.join(root, 'tasks/t1/order.json');
  fs.copyFileSync(order, order + '.tmp');
  fs.renameSync(order + '.tmp', order);
  ix.request('tasks/t1');
  ix.pump();
  await ix.stop();
  const text = await metricsText([{ channel: 'channel', figures: metricsFigures(db, Date.now()), nowMs: Date.now() }]);
  db.close();
  return new Set(parseMetrics(text).keys());
}

describe('docs/alert-rules.yml', () => {
  it('is a Prometheus rule file: groups of uniquely named rules, nothing Prometheus would refuse', () => {
    const file = rules();
    expect(new Set(file.groups.map((g) => g.name)).size).toBe(file.groups.length);
    for (const g of file.groups) expect(new Set(g.rules.map((r) => r.alert)).size, g.name).toBe(g.rules.length);
    // The parser and the schema refuse what they should (a check that could not fail would prove nothing).
    expect(() => parse('groups:\n  - name: a\n    name: b\n', { uniqueKeys: true })).toThrow();
    expect(RuleFile.safeParse({ groups: [{ name: 'g', rules: [{ alert: 'A', expr: 'up == 0', for: '5 minutes' }] }] }).success).toBe(false);
    expect(RuleFile.safeParse({ groups: [{ name: 'g', rules: [{ alert: 'A', expr: 'up == 0', fore: '5m' }] }] }).success).toBe(false);
  });

  it('has the rules an operator needs: attention for 5m, a stale claim over an hour, problems, index lag, scrape down', () => {
    const all = rules().groups.flatMap((g) => g.rules);
    const using = (metric: string) => all.filter((r) => r.expr.includes(metric));
    expect(using('claimboard_lane_orders{lane="attention"}').map((r) => r.for)).toEqual(['5m']);
    expect(using('claimboard_oldest_stale_claim_age_seconds').map((r) => r.expr)).toEqual(['claimboard_oldest_stale_claim_age_seconds > 3600']);
    expect(using('claimboard_problems').map((r) => r.expr)).toEqual([expect.stringMatching(/\) > 0$/)]);
    expect(using('claimboard_index_lag_seconds')).toHaveLength(1);
    expect(all.filter((r) => /^up\{[^}]*\} == 0$/.test(r.expr))).toHaveLength(1);
    for (const r of all) expect(r.annotations?.summary, r.alert).toBeTruthy();
  });

  it('names only metrics that GET /metrics exposes', async () => {
    const exposed = await exposedNames();
    const named = new Set(rules().groups.flatMap((g) => g.rules.flatMap((r) => r.expr.match(/\bclaimboard_[a-z_]+\b/g) ?? [])));
    expect(named.size).toBeGreaterThanOrEqual(7);
    for (const n of named) expect(exposed.has(n), n).toBe(true);
  });
});
