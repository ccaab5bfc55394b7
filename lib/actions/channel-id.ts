import 'server-only';
/**
 * Which channel an act on a folder is for (lib/ledger/channel-binding.ts): the id
 * `claimboard.channel.json` names, read by the indexer's rules (a symlink is not followed), or,
 * while the folder names none, an id proposed by the one applying the act, written with that
 * act (apply.ts) and never replaced after. The web process proposes one id for its lifetime
 * (`serverProposal`), so what GET /api/operators/:name gives the page to sign is what the
 * next POST /api/actions checks.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { CHANNEL_FILE, parseChannelFile } from '../ledger/channel-binding';
import { readChannelFile } from '../index/disk/read-channel';

/** A new channel id: 32 hex digits. */
export function newChannelId(): string {
  return randomBytes(16).toString('hex');
}

/** The channel an act is signed for: the folder's id (`create` false) or the proposed one it must write (`create` true), or why none can be. */
export type ActingChannel = { readonly id: string; readonly create: boolean } | { readonly problem: string };

/** The channel an act on the folder at `root` is for, with `proposed` used while the folder names none. */
export function actingChannel(root: string, proposed: string | undefined): ActingChannel {
  const read = readChannelFile(path.join(/*turbopackIgnore: true*/ root, CHANNEL_FILE));
  if ('refused' in read) return { problem: `${CHANNEL_FILE} is not read (${read.refused}): no act can be bound to this channel` };
  if ('missing' in read) {
    return proposed !== undefined ? { id: proposed, create: true } : { problem: `${CHANNEL_FILE} is not in the channel: no act can be bound to it` };
  }
  const parsed = parseChannelFile(read.bytes);
  return 'id' in parsed ? { id: parsed.id, create: false } : { problem: `${CHANNEL_FILE} names no channel (${parsed.problem}): no act can be bound to this channel` };
}

const PROPOSAL = Symbol.for('claimboard.channelProposal');

/**
 * The id this process proposes for a folder that names no channel yet: one per process, kept on
 * globalThis because Next.js may load this module once per route.
 */
export function serverProposal(): string {
  const g = globalThis as { [PROPOSAL]?: string };
  return (g[PROPOSAL] ??= newChannelId());
}
