/** Key trust: a changed key is a problem until an operator re-pins it on this machine. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory } from './db';
import { Indexer } from './indexer';
import { repin } from './repin';
import { naclPublicKey } from '../ledger/nacl-verify';
import { seedOf } from '../../test/support/channel-builder';
import { VECTORS_DIR } from '../../test/support/vectors';
import * as q from './read/queries';

let dir = '';
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('repin', () => {
  it('keeps the first key pinned when the folder changes it, until repin trusts the new one', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-pin-'));
    fs.cpSync(path.join(VECTORS_DIR, '09-done', 'channel'), dir, { recursive: true });
    const db = openMemory();
    const ix = new Indexer({ root: dir, db, staleAfterMs: 300_000, watch: false });
    await ix.start();
    // fang's roster file now carries another key (a rebuilt machine, or an impostor).
    const intruder = naclPublicKey(seedOf('intruder'));
    const agentFile = path.join(dir, 'agents/fang.json');
    fs.writeFileSync(agentFile, JSON.stringify({ ...JSON.parse(fs.readFileSync(agentFile, 'utf8')), public_key: intruder }));
    ix.request(null);
    ix.pump();
    expect(q.problems(db).problems.map((p) => [p.path, p.problem])).toEqual([['agents/fang.json', 'key_changed']]);
    // Records still verify against the pinned key: fang's old result is still valid, the order still done.
    expect(q.order(db, 't1', Date.now())?.card.state).toBe('done');
    expect(() => repin(db, dir, 'fang', naclPublicKey(seedOf('someone-else')))).toThrow(/is not the one in the folder \(.*\); nothing changed/);
    const r = repin(db, dir, 'fang');
    expect(r.to).toBe(intruder);
    ix.request(null);
    ix.pump();
    await ix.stop();
    // Now the new key is trusted: the problem is gone, and fang's old result (signed with the old key) no longer verifies.
    const problems = q.problems(db).problems.map((p) => [p.path, p.problem]);
    expect(problems).toEqual([['tasks/t1/result.fang.001.json', 'invalid_signature']]);
  });
});
