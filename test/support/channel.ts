/**
 * Test helper: names a test channel, as the first act claimboard writes into a channel does
 * (claimboard.channel.json, lib/ledger/channel-binding.ts), so that acts can be signed for it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CHANNEL_FILE, channelFileBytes } from '../../lib/ledger/channel-binding';

/** The id the tests' channels are named by, unless a test names its own. */
export const TEST_CHANNEL = 'test-channel-0001';

/** Writes `claimboard.channel.json` naming `id` at the channel's root; returns `id`. */
export function nameChannel(root: string, id: string = TEST_CHANNEL): string {
  fs.writeFileSync(path.join(root, CHANNEL_FILE), channelFileBytes(id, '2026-11-30T12:00:00Z'));
  return id;
}
