/** The web process's hint to the indexer (lib/index/nudge.ts): paths arrive, anything else is dropped. */
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isNudgePath, listenForNudges, nudgeIndexer } from './nudge';
import { until } from '../../test/support/until';


describe('nudges', () => {
  it('accepts channel-relative paths of one to three names, none hidden, none empty', () => {
    expect(['tasks/g2/reopen.ops.json', 'ledger.ops.jsonl', 'tasks/g2'].map(isNudgePath)).toEqual([true, true, true]);
    expect(['', '../etc/passwd', 'tasks/../x', 'tasks/.x/y', 'tasks//y', '/abs', 'a/b/c/d', 'tasks/a\0b'].map(isNudgePath)).toEqual([false, false, false, false, false, false, false, false]);
  });

  it('delivers the written paths to the listener; lines that are not paths never reach it', async () => {
    const sock = path.join(os.tmpdir(), `cb-nudge-test-${process.pid}.sock`);
    const got: string[] = [];
    const stop = await listenForNudges(sock, (rel) => got.push(rel));
    try {
      nudgeIndexer(['tasks/g2/reopen.ops.json', 'ledger.ops.jsonl'], sock);
      // Another local process writing junk: dropped line by line.
      const c = net.createConnection(sock);
      c.end('../../etc/passwd\ntasks/a/b/c/d\ntasks/t1\n');
      await until(() => got.length >= 3, 60_000);
      expect(got.sort()).toEqual(['ledger.ops.jsonl', 'tasks/g2/reopen.ops.json', 'tasks/t1']);
    } finally {
      stop();
    }
  });

  it("names the channel of each path when a serve of several channels is told; a line naming no channel name is dropped", async () => {
    const sock = path.join(os.tmpdir(), `cb-nudge-hub-test-${process.pid}.sock`);
    const got: string[] = [];
    const stop = await listenForNudges(sock, (rel, channel) => got.push(`${channel ?? '-'} ${rel}`));
    try {
      nudgeIndexer(['tasks/g2/reopen.ops.json'], sock, 'alpha');
      const c = net.createConnection(sock);
      c.end('a b\ttasks/t1\nBeta\ttasks/t2\nbeta\t../x\ntasks/t3\n');
      await until(() => got.length >= 3, 60_000);
      expect(got.sort()).toEqual(['- tasks/t3', 'alpha tasks/g2/reopen.ops.json', 'beta tasks/t2']);
    } finally {
      stop();
    }
  });

  it('never throws when nobody listens', () => {
    expect(() => nudgeIndexer(['tasks/t1'], path.join(os.tmpdir(), 'cb-nobody-listens.sock'))).not.toThrow();
    expect(() => nudgeIndexer(['tasks/t1'], undefined)).not.toThrow();
  });
});
