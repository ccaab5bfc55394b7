/**
 * Every operator act moves the real fleet: on a copy of channel alpha (written by the
 * real ferry, conformance/ferry/alpha) an operator re-queues a stale claim, supersedes an order
 * addressed to a retired name, and retires a worker, through the same code as the CLI and the
 * page. claimboard's own reading afterwards is checked always; when CLAIMBOARD_FERRY_KIT names
 * the real ferry's kit, ferry's own verdict is asked too: the work must be
 * offered to another agent. Without the binary those checks say that they are skipped.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAction } from '../../bin/actions';
import { channelStateOf } from '../index/channel-state';
import { naclPublicKey } from '../ledger/nacl-verify';
import { FERRY_DIR } from '../../test/support/ferry-cases';
import { FERRY_KIT } from '../../test/support/ferry-kit';

const ORACLE = path.join(FERRY_KIT ?? '(CLAIMBOARD_FERRY_KIT unset)', 'bin', 'ferry-oracle');
const haveFerry = fs.existsSync(ORACLE);
if (!haveFerry) console.warn(`ferry-acts.test: no real ferry (CLAIMBOARD_FERRY_KIT: ${ORACLE}): ferry's own verdict is skipped; claimboard's reading is still checked`);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-ferry-acts-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A writable copy of alpha with an operator `cbops` of our own in its roster; returns [channel, key file]. */
function alphaWithOperator(name: string): [string, string] {
  const ch = path.join(tmp, name);
  fs.cpSync(path.join(FERRY_DIR, 'alpha', 'channel'), ch, { recursive: true });
  execFileSync('chmod', ['-R', 'u+w', ch]);
  const seed = 'a1'.repeat(32);
  fs.writeFileSync(path.join(ch, 'agents', 'cbops.json'), JSON.stringify({ name: 'cbops', role: 'operator', capabilities: [], public_key: naclPublicKey(seed) }, null, 2));
  fs.mkdirSync(path.join(tmp, `${name}-keys`));
  const key = path.join(tmp, `${name}-keys`, "cbops.key");
  fs.writeFileSync(key, seed, { mode: 0o600 });
  return [ch, key];
}

interface OracleOrder {
  readonly state: string;
  readonly holder: string | null;
  readonly offered_to: readonly string[];
}
/** ferry's verdict per order (ferry-oracle: Task::state_at, holder, work_for), or null without the binary. */
function ferry(ch: string): Record<string, OracleOrder> | null {
  if (!haveFerry) return null;
  return (JSON.parse(execFileSync(ORACLE, [ch, '--compact'], { encoding: 'utf8' })) as { orders: Record<string, OracleOrder> }).orders;
}
const card = (ch: string, id: string, staleAfterMs = 300_000) => channelStateOf(ch, { staleAfterMs }).orders.find((o) => o.order_id === id);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('operator acts on a channel the real ferry wrote', () => {
  it('re-queue of a stale claim: ferry reads the order Open and offers it to another worker', async () => {
    const [ch, key] = alphaWithOperator('requeue');
    await sleep(20); // the copy's files arrived just now; a 5 ms window makes fang's claim stale here
    const done = runAction('requeue', ch, 'a-stale', { key, reason: 'fang died', staleAfter: 0.005 });
    expect(done.written).toEqual(['claimboard.channel.json', 'tasks/a-stale/release.cbops.fang.json', 'ledger.cbops.jsonl']);
    // The release carries claimboard's channel binding, fields ferry's Release does not name.
    expect(Object.keys(JSON.parse(fs.readFileSync(path.join(ch, 'tasks/a-stale/release.cbops.fang.json'), 'utf8')) as object)).toEqual(['order_id', 'released', 'releaser', 'reason', 'at', 'signed_by', 'signature', 'channel', 'channel_signature']);
    expect(done.ferry).toContain('Open again');
    expect([card(ch, 'a-stale')?.state, card(ch, 'a-stale')?.holder]).toEqual(['open', null]);
    const f = ferry(ch);
    if (f) {
      expect(f['a-stale']?.state).toBe('open');
      expect(f['a-stale']?.offered_to).toContain('nebra');
    }
  });

  it('supersede of an order addressed to a retired name: the new order is offered to the agent named, the old one stops being an alarm', () => {
    const [ch, key] = alphaWithOperator('supersede');
    expect(card(ch, 'a-wisp-offered')?.flags).toEqual(['retired_holder']);
    const done = runAction('supersede', ch, 'a-wisp-offered', { key, reason: 'wisp is gone', to: 'nebra' });
    expect(done.written).toEqual(['claimboard.channel.json', 'tasks/a-wisp-offered-2/order.json', 'tasks/a-wisp-offered/supersede.cbops.json', 'ledger.cbops.jsonl']);
    const old = card(ch, 'a-wisp-offered');
    expect([old?.state, old?.flags, old?.superseded_by]).toEqual(['offered', [], 'a-wisp-offered-2']);
    const neu = card(ch, 'a-wisp-offered-2');
    expect([neu?.state, neu?.holder, neu?.flags, neu?.supersedes, neu?.issued_by]).toEqual(['offered', 'nebra', [], 'a-wisp-offered', 'cbops']);
    const f = ferry(ch);
    if (f) {
      // ferry verifies the new order (signed by cbops, in the roster) and offers it to nebra alone
      expect([f['a-wisp-offered-2']?.state, f['a-wisp-offered-2']?.holder, f['a-wisp-offered-2']?.offered_to]).toEqual(['offered', 'nebra', ['nebra']]);
      expect(f['a-wisp-offered']?.state).toBe('offered'); // ferry cannot withdraw an order: as documented
    }
  });

  it('supersede is refused for an open order (ferry would run both)', () => {
    const [ch, key] = alphaWithOperator('supersede-open');
    expect(() => runAction('supersede', ch, 'a-open', { key, reason: 'x' })).toThrow(/ferry would run both/);
    expect(fs.existsSync(path.join(ch, 'tasks', 'a-open-2'))).toBe(false);
  });

  it('retire of a worker: ferry sees every release; orders addressed to it stay its own in ferry', async () => {
    const [ch, key] = alphaWithOperator('retire');
    await sleep(20);
    const done = runAction('retire', ch, 'fang', { key, reason: 'machine rebuilt', staleAfter: 0.005 });
    // a-stale is held by fang's claim: released. a-paused and a-killed are addressed to fang and
    // already carry fang's own release ("orphaned at startup"), so no second one is written.
    expect(done.written).toContain('tasks/a-stale/release.cbops.fang.json');
    expect(done.written).toContain('retirements/fang.cbops.json');
    expect(done.ferry).toContain('supersede');
    expect(card(ch, 'a-stale')?.state).toBe('open');
    expect(card(ch, 'a-killed')?.flags).toContain('retired_holder');
    const f = ferry(ch);
    if (f) {
      expect(f['a-stale']?.state).toBe('open');
      expect(f['a-stale']?.offered_to).toContain('nebra');
      expect(f['a-killed']?.offered_to).toEqual(['fang']);
    }
  });
});
