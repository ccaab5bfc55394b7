/**
 * The rulebook's version (rulebook-version.ts): derived from the rules' words, and RULES_REVISION
 * pinned to the cards this rulebook derives from every conformance channel, so a change of any
 * card (a rule's code, a card field, a reason's words) fails here until the revision is bumped:
 * an index storing cards of the older rulebook then derives them again when it opens.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deriveChannel } from './channel';
import { sha256HexOfText } from './canonical';
import { nodeVerify } from '../index/disk/node-verify';
import { RULEBOOK } from './flags';
import { RULEBOOK_VERSION, RULES_REVISION, versionOf } from './rulebook-version';
import { ferryCases } from '../../test/support/ferry-cases';
import { folderEntries, loadExpect, vectorNames, VECTORS_DIR } from '../../test/support/vectors';

const NOW = Date.parse('2026-11-30T12:00:00Z');

/**
 * Per RULES_REVISION, the digest of the cards it derives from each conformance channel (the
 * vectors with their ages, ferry's channels with every file arriving now, 300 s stale_after). A
 * new case adds its line to the current revision; a changed digest needs a new revision.
 */
const CARDS: Record<number, Record<string, string>> = {
  1: {
    'vectors/01-open': '9920a5dbe437bf3a',
    'vectors/02-offered': '119afe42034a016f',
    'vectors/03-claimed-fresh': '4d070c3f16791414',
    'vectors/04-stale-heartbeat-lapsed': 'a834ce3f42cdd202',
    'vectors/05-stale-agent-silent': 'ef0ccaf8a523b1e0',
    'vectors/06-stale-no-heartbeat': 'f7d356cb4357ffb9',
    'vectors/07-clock-skew-is-not-staleness': 'a7999fe63e239ba5',
    'vectors/08-self-release': '771906788bcfb4fb',
    'vectors/09-done': '5f316410857c7165',
    'vectors/10-review-states': '25a7519095e0f0ff',
    'vectors/11-give-up-ack-reopen': '63e5eab2399289e8',
    'vectors/12-reopen-done': '711e7de0ad7cfc51',
    'vectors/13-retired': '4f798442a5b0ea24',
    'vectors/14-double-run': '1504da83078b620d',
    'vectors/15-late-result': '30da0b8ad7363bd7',
    'vectors/16-released-assignee': '203f8cbeb5670fb1',
    'vectors/17-bad-signatures': '41d6e8ff92134d8f',
    'vectors/18-sync-noise': '16a0ee6ecc78fb30',
    'vectors/19-timestamps-and-payloads': 'cfe61d3570373b86',
    'vectors/20-dependencies': 'ceb1903f438ad7c0',
    'vectors/21-case-and-names': '35bc4f1fb17f911f',
    'vectors/22-ledger': '771906788bcfb4fb',
    'ferry/alpha': '3074554e01dcb6f1',
    'ferry/alpha-2': '8b8f490ed148b3a0',
    'ferry/beta': '4f25cb52ee418820',
    'ferry/beta-2': '781f0138a9697029',
    'ferry/gamma': '51ef1ad9b7b797b7',
    'ferry/gamma-folder-only': '51ef1ad9b7b797b7',
    'ferry/rt-addrdead': '282ce4ca353e7eca',
    'ferry/rt-addrdead-a': 'caa8636f4f251228',
    'ferry/rt-addrdead-b': '282ce4ca353e7eca',
    'ferry/rt-changes': 'db0b27bd93db4bdc',
    'ferry/rt-changes-a': '21a0cf912534c8f9',
    'ferry/rt-changes-b': '78fc29fb93b83a44',
    'ferry/rt-changes-c': '15333b5b894b6fa3',
    'ferry/rt-changes-requested': '6ba8e18b963fc4be',
    'ferry/rt-deps': '7c1c0d57178d8ad8',
    'ferry/rt-deps-a': '54a4c1424eeaf429',
    'ferry/rt-deps-b': '2a4b5b2255e9bfe8',
    'ferry/rt-giveup': '25e8ad65d7225a25',
    'ferry/rt-giveup-retrying': '25e8ad65d7225a25',
    'ferry/rt-healthy': 'bac321aec2bb3b6a',
    'ferry/rt-healthy-busy': '20d31a457753735c',
    'ferry/rt-healthy-mid1': '42b59c1129deb8ae',
    'ferry/rt-human-loop': 'ddf3ac1be188038f',
    'ferry/rt-interrupt-overwrite': '1cba6b18a67a2801',
    'ferry/rt-kill-restart': 'e859f4d95fd178a4',
    'ferry/rt-killlate': 'ea18d6ba113ec488',
    'ferry/rt-killlate-running': '164d5788c11cc1b3',
    'ferry/rt-killopen': '0b438ef426d42a29',
    'ferry/rt-killopen-a': '27bfa5123800e34a',
    'ferry/rt-loop': 'ad76baa2a97ad8d3',
    'ferry/rt-nobody': '14f757b7dbd8bac7',
    'ferry/rt-oncefail': '01bbdc6e113d1e05',
    'ferry/rt-oncefail-a': '41fa95dda97205f7',
    'ferry/rt-oncefail-b': '8348fc7ca73770f6',
    'ferry/rt-pausedead': 'f0ec882a494c116e',
    'ferry/rt-pausedead-a': '7d09f0fee34ad664',
    'ferry/rt-pausedead-b': '0dbbcf2ead89c86c',
    'ferry/rt-race': '5105674ff2717641',
    'ferry/rt-race-dead-a': '3cd98c9c3e28ffda',
    'ferry/rt-race-dead-b': '62a9a45bdb486d4f',
    'ferry/rt-race-running': 'bcee21946e043e4d',
    'ferry/rt-race2': 'e52849e9b52d29d4',
    'ferry/rt-race2-a': 'bf80938e86043c96',
    'ferry/rt-race2-b': '4bb78e1bb93fbcb4',
    'ferry/rt-retire-a': 'a85aab8af6fbcf51',
    'ferry/rt-retire-overwrite': 'c2a5391a2c2587cc',
    'ferry/rt-steer-overwrite': 'e2f37333869b0a50',
    'ferry/rt-steermid': 'ebc213219aac4d72',
    'ferry/rt-steermid-b': 'b50c743ca1635503',
    'ferry/rt-steermid-running': '9dbec371992c2636',
    'ferry/rt-syncdelay': '45c55e7949c6a131',
    'ferry/rt-syncdelay-b': 'b64b5fd8ea1886d0',
    'ferry/rt-syncdelay-running': '9bf0498e35183140',
    'ferry/rt-syncloser': 'ffd6af4220f5ff28',
    'ferry/rt-twice': 'a10e268bd9608763',
    'ferry/rt-two-ops': '1ef970bd5fafdf54',
  },
};

/** The first 16 hex digits of the SHA-256 of a channel's cards as an index stores them (`since` aside: it is this machine's time zone). */
function cardsDigest(root: string, ages: Readonly<Record<string, number>>, staleAfterMs: number): string {
  const cards = deriveChannel(folderEntries(root, NOW, ages), { nowMs: NOW, staleAfterMs, verify: nodeVerify })
    .orders.map(({ since: _since, ...c }) => c)
    .sort((a, b) => (a.order_id < b.order_id ? -1 : 1));
  return sha256HexOfText(JSON.stringify(cards)).slice(0, 16);
}

function digests(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of vectorNames()) {
    const want = loadExpect(n);
    out[`vectors/${n}`] = cardsDigest(path.join(VECTORS_DIR, n, 'channel'), want.age_s ?? {}, want.stale_after_s * 1000);
  }
  for (const c of ferryCases()) out[`ferry/${c.name}`] = cardsDigest(c.channel, {}, 300_000);
  return out;
}

describe('the rulebook version', () => {
  it('is the revision and a digest of the words: a change of any rule\'s words, or the revision, changes it', () => {
    expect(RULEBOOK_VERSION).toMatch(new RegExp(`^${RULES_REVISION}\\.[0-9a-f]{16}$`));
    expect(versionOf(RULES_REVISION, RULEBOOK)).toBe(RULEBOOK_VERSION);
    expect(versionOf(RULES_REVISION + 1, RULEBOOK)).not.toBe(RULEBOOK_VERSION);
    const reworded = RULEBOOK.map((r, i) => (i === 3 ? { ...r, rule: `${r.rule}.` } : r));
    expect(versionOf(RULES_REVISION, reworded)).not.toBe(RULEBOOK_VERSION);
  });

  it('RULES_REVISION is the revision whose pinned cards this rulebook derives', () => {
    const got = digests();
    if (process.env.PRINT_CARDS === '1') console.log(JSON.stringify(got, null, 2));
    expect(
      got,
      `the cards derived from the conformance channels differ from those pinned for revision ${RULES_REVISION}: if a pinned case changed, bump RULES_REVISION (lib/ledger/rulebook-version.ts) and pin these under the new number (an index then derives its stored cards again); if only cases were added, add their lines`,
    ).toEqual(CARDS[RULES_REVISION]);
  });
});
