/**
 * Fault as the serve process's
 * alerts meet it. Before: the indexer rebuilt the index into a new file, but the alert engine
 * kept the connection it was given at start, on the deleted file nobody wrote any more: it read
 * the board as it was before the rebuild, so an order needing attention after it was never
 * paged (and GET /api/alerts, reading the new file, showed no configuration). Now the indexer
 * tells the engine the new connection once the rebuild is complete (IndexerOptions.onRebuilt,
 * as bin/serve.ts wires it), the engine copies its tables across and follows it: the new order
 * is paged, the one paged before is not paged again, and the new file's status says both.
 *
 * The real Indexer on a real channel and index file, the real engine with a command target
 * (each payload appended to a file). The orders: a give-up nobody acknowledged (Needs attention,
 * flag gave_up) before the rebuild, another after it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AlertEngine } from '../../lib/alerts/engine';
import type { AlertPayload } from '../../lib/alerts/payload';
import { alertsStatus } from '../../lib/alerts/status';
import { openReader, openWriter } from '../../lib/index/db';
import { healthFileOf } from '../../lib/index/health';
import { Indexer } from '../../lib/index/indexer';
import { nodeVerify } from '../../lib/index/disk/node-verify';
import { ChannelBuilder } from '../support/channel-builder';
import { until } from '../support/until';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-alerts-rebuilt-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Writes the builder's files into `root` (arrivals: now, the files' ctimes). */
function write(root: string, b: ChannelBuilder): void {
  for (const e of b.entries()) {
    if (e.type !== 'file' || !e.bytes) continue;
    fs.mkdirSync(path.dirname(path.join(root, e.path)), { recursive: true });
    fs.writeFileSync(path.join(root, e.path), e.bytes);
  }
}

/** An order fang claimed and gave up, not acknowledged. */
const gaveUp = (b: ChannelBuilder, id: string) => b.order(id).claim(id, 'fang').giveup(id, 'fang');

describe('alerts when the index database is rebuilt while serving', () => {
  it('follow the new index: a later order is paged, an earlier one not again, the status is in the new file', async () => {
    // The cards these orders make, from the pure core: what the engine must page.
    const probe = gaveUp(gaveUp(new ChannelBuilder().roster(), 'g1'), 'g2');
    expect([probe.card('g1')?.lane, probe.card('g2')?.lane]).toEqual(['attention', 'attention']);

    const root = path.join(tmp, 'channel');
    write(root, gaveUp(new ChannelBuilder().roster(), 'g1'));
    const file = path.join(tmp, 'index.db');
    const db = openWriter(file);
    const out = path.join(tmp, 'paged.jsonl');
    const lines: string[] = [];
    const log = (l: string) => lines.push(l);
    const engine = new AlertEngine({ db, channel: root, staleAfterMs: 300_000, targets: [{ kind: 'command', command: `cat >> '${out}'` }], baseUrl: 'http://b', log });
    const ix = new Indexer({
      root,
      db,
      staleAfterMs: 300_000,
      watch: false,
      rescanMs: 100,
      verify: nodeVerify,
      log,
      onSettled: () => engine.poke(),
      onRebuilt: (rebuilt) => engine.useDb(rebuilt),
    });
    // Whole lines only (the last, after the final newline, is empty or still being written).
    const paged = (): [string, string | undefined][] =>
      (fs.existsSync(out) ? fs.readFileSync(out, 'utf8').split('\n').slice(0, -1) : []).map((l) => JSON.parse(l) as AlertPayload).map((p) => [p.event, p.order_id]);
    try {
      await ix.start();
      engine.start();
      expect(await until(() => paged().length === 1, 60_000)).toBe(true);
      expect(paged()).toEqual([['attention', 'g1']]);
      // The command has written its line; its success is recorded once it has exited: only then
      // is nothing owed to carry over.
      await engine.idle();

      fs.rmSync(file);
      expect(await until(() => lines.some((l) => /rebuilt from the folder/.test(l)), 60_000)).toBe(true);
      const following = () => lines.filter((l) => /^alerts: following the rebuilt index \(1 open alert and 0 owed deliveries carried over\)$/.test(l)).length;
      expect(await until(() => following() > 0, 60_000)).toBe(true);
      expect(following()).toBe(1);

      write(root, gaveUp(new ChannelBuilder(), 'g2'));
      expect(await until(() => paged().length >= 2, 60_000)).toBe(true);
      await engine.idle();
      await new Promise((r) => setTimeout(r, 500)); // a few more looks: nothing else is paged
      await engine.idle();
      expect(paged()).toEqual([
        ['attention', 'g1'],
        ['attention', 'g2'],
      ]);

      // What GET /api/alerts reads: the file now at the path.
      const reader = openReader(file);
      try {
        const s = alertsStatus(reader, Date.now());
        expect(s.configured).toBe(true);
        expect(s.open.map((o) => [o.order_id, o.sent_ms !== null]).sort()).toEqual([
          ['g1', true],
          ['g2', true],
        ]);
        expect(s.targets.map((t) => t.sent)).toEqual([2]); // g1's delivery (carried over) and g2's
      } finally {
        reader.close();
      }
    } finally {
      await engine.stop();
      await ix.stop();
      db.close();
      fs.rmSync(healthFileOf(file), { force: true });
    }
  });
});
