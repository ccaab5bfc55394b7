/**
 * An act writes its files and its ledger line together, or refuses having written nothing: every
 * file is staged (temp file written) before any is put in place, so a disk that fills while the
 * act is written leaves the folder as it was. Only a change in the instant between placing the
 * record and placing the line (here: the ledger replaced by a symlink) leaves it partly written;
 * the refusal then says exactly what was written and what was not, and the Activity page, reading
 * the files, shows the act as partly written in those words.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyAction, deriveSubset, type ApplyContext } from './apply';
import { ledgerPrevOf } from './write';
import { buildAction, type ActionRequest } from '../ledger/actions';
import { naclSign } from '../ledger/nacl-verify';
import { nodeVerify } from '../index/disk/node-verify';
import { openMemory } from '../index/db';
import { Indexer } from '../index/indexer';
import { activity } from '../index/read/activity';
import { folderSnapshot } from '../../test/support/folder';
import { VECTORS_DIR, vectorKeys } from '../../test/support/vectors';
import { nameChannel, TEST_CHANNEL } from '../../test/support/channel';

const OPS_SEED = (vectorKeys() as Record<string, { seed: string }>).ops?.seed ?? '';
let cleanup: (() => void)[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const c of cleanup.reverse()) c();
  cleanup = [];
});

/** Vector 06 (ichabod-1650 claimed by fang, no heartbeat), named, an hour on (the claim is stale); ops's re-queue of it, signed. */
function staleClaim(): { root: string; ctx: ApplyContext; req: ActionRequest } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-partial-'));
  cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.cpSync(path.join(VECTORS_DIR, '06-stale-no-heartbeat', 'channel'), root, { recursive: true });
  nameChannel(root);
  const ctx: ApplyContext = { root, nowMs: Date.now() + 3600_000, staleAfterMs: 300_000, operators: [], verify: nodeVerify };
  const card = deriveSubset(ctx, null).views.get('ichabod-1650')?.card;
  if (!card) throw new Error('no ichabod-1650');
  const req = buildAction({ action: 'requeue', card, note: 'fang is gone' }, 'ops', (p) => naclSign(OPS_SEED, p), '2026-11-30T12:00:00Z', ledgerPrevOf(path.join(root, 'ledger.ops.jsonl')).prev, TEST_CHANNEL);
  return { root, ctx, req };
}

const RELEASE = 'tasks/ichabod-1650/release.ops.fang.json';
const temps = (root: string) => Object.keys(folderSnapshot(root)).filter((p) => p.endsWith('.tmp'));

describe('an act and its ledger line', () => {
  it('a disk that fills while the act is written refuses with nothing written: the release is staged, never placed, when its line cannot be', () => {
    const { root, ctx, req } = staleClaim();
    const before = folderSnapshot(root);
    // The release's temp file is written whole; the ledger's, staged next, meets a full disk.
    const write = fs.writeSync;
    let calls = 0;
    const full = (...args: Parameters<typeof fs.writeSync>): number => {
      if (++calls === 2) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      return (write as (...a: Parameters<typeof fs.writeSync>) => number)(...args);
    };
    vi.spyOn(fs, 'writeSync').mockImplementation(full);
    const res = applyAction(req, ctx);
    vi.restoreAllMocks();
    expect(res).toEqual({ code: 'refused', status: 422, reason_code: 'write_failed', reason: 'cannot write ledger.ops.jsonl: ENOSPC; nothing was written' });
    expect(folderSnapshot(root)).toEqual(before);
  });

  it("the ledger replaced by a symlink between the release and its line: the refusal says what was written and what was not, and Activity shows the act partly written", async () => {
    const { root, ctx, req } = staleClaim();
    const ledger = path.join(root, 'ledger.ops.jsonl');
    // Another process swaps the ledger for a symlink the instant the release is in place.
    const link = fs.linkSync;
    vi.spyOn(fs, 'linkSync').mockImplementation((from, to) => {
      link(from, to);
      if (String(to).endsWith(RELEASE)) fs.symlinkSync('/etc/hostname', ledger);
    });
    const res = applyAction(req, ctx);
    vi.restoreAllMocks();
    expect(res).toEqual({
      code: 'conflict',
      status: 409,
      reason_code: 'in_the_way',
      reason: `partly written: ${RELEASE} written; its ledger line (ledger.ops.jsonl) was not: ledger.ops.jsonl is a symlink; not followed, not replaced`,
      written: [RELEASE],
      not_written: ['ledger.ops.jsonl'],
    });
    // The release is in place and counts; the symlink is as the other process left it; no temp file.
    expect(fs.readlinkSync(ledger)).toBe('/etc/hostname');
    expect(temps(root)).toEqual([]);
    expect(deriveSubset(ctx, null).views.get('ichabod-1650')?.card.state).toBe('open');

    // The Activity page, from the files as the indexer reads them.
    const db = openMemory();
    cleanup.push(() => db.close());
    const ix = new Indexer({ root, db, staleAfterMs: 300_000, watch: false, verify: nodeVerify, workers: 0 });
    await ix.start();
    await ix.stop();
    const page = activity(db, {}, null, 0);
    const act = page.acts.find((a) => a.key === RELEASE);
    expect([act?.act, act?.operator, act?.record?.verified, act?.ledger, act?.partial]).toEqual([
      'requeue',
      'ops',
      true,
      null,
      'release written; its ledger line is not: ledger.ops.jsonl is not read (symlink; not followed)',
    ]);
    expect(page.ledgers).toEqual([{ path: 'ledger.ops.jsonl', signer: 'ops', entries: 0, intact: false, reason: 'symlink: symlink; not followed' }]);
  });
});
