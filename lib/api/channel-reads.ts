import 'server-only';
/**
 * Which channels a read endpoint beside the board reads (agents, activity, problems, tuning,
 * history): `?channel=<name>` names one; named none, a serve of one channel reads it as it always
 * did, and a hub reads every channel where the answer is a plain merge (each row with its
 * channel) or refuses with `which_channel` where a merge would mean nothing (the channels to pick
 * from in the body).
 */
import { z } from 'zod';
import { settings } from '../config';
import { ClaimboardError } from '../errors';
import type { DB } from '../index/db';
import { indexNowMs } from '../index/steady-clock';
import { canonicalName, CHANNEL_NAME_RULE, isChannelName } from '../ledger/names';
import type { EndpointContext } from './endpoint';
import { onlyChannel } from './channels';

/** The `channel` query parameter of a read: a channel's name, canonical. */
export const ChannelParam = z
  .string()
  .max(200)
  .refine(isChannelName, { error: `not a channel name (${CHANNEL_NAME_RULE})` })
  .transform(canonicalName)
  .optional();

/** One channel read: its name (null when one channel is served: answers then name none, as a serve of one channel always answered), index and now on its clock. */
export interface ChannelRead {
  readonly name: string | null;
  readonly db: DB;
  readonly nowMs: number;
}

/** What a read reads: one channel (`hub` false: named, or the only one), or each served channel of a hub. */
export interface ChannelReads {
  readonly hub: boolean;
  readonly reads: readonly ChannelRead[];
}

/** The refusal of a read that must name one of `channels` (`why` says which of them could answer). */
export function whichChannel(why: string, channels: readonly string[]): ClaimboardError {
  return new ClaimboardError('bad_request', `${why}: say which with ?channel=<name>`, { reasonCode: 'which_channel', detail: { channels } });
}

/**
 * The channels a read of `named` reads. A serve of one channel (no registry, or a registry
 * listing one channel, served) named none: its index as today. A channel named: that one
 * (`not_found` `which_channel` when none served has the name; `index_unavailable` when it is
 * gone). Several listed, none named: every served one that can be opened (`hub` true); a channel
 * whose index cannot be opened yet is left out, and when none can, the first one's error.
 */
export function channelReads(ctx: EndpointContext, named: string | undefined): ChannelReads {
  if (named === undefined && !settings.hubRegistry()) return { hub: false, reads: [{ name: null, db: ctx.db(), nowMs: ctx.nowMs() }] };
  const channels = ctx.channels();
  const list = channels.list;
  const only = onlyChannel(channels);
  if (named !== undefined) {
    const view = list.find((c) => c.name === named);
    if (!view) throw new ClaimboardError('not_found', `no channel ${named} is served here`, { reasonCode: 'which_channel' });
    if (view.state === 'gone') throw new ClaimboardError('index_unavailable', `channel ${view.name} is not served now (${view.why ?? 'gone'})`);
    const db = view.db();
    return { hub: false, reads: [{ name: only ? null : view.name, db, nowMs: indexNowMs(db) }] };
  }
  if (only) {
    const db = only.db();
    return { hub: false, reads: [{ name: null, db, nowMs: indexNowMs(db) }] };
  }
  const reads: ChannelRead[] = [];
  let unavailable: ClaimboardError | null = null;
  for (const c of list) {
    if (c.state !== 'served') continue;
    try {
      const db = c.db();
      reads.push({ name: c.name, db, nowMs: indexNowMs(db) });
    } catch (e) {
      if (!(e instanceof ClaimboardError)) throw e;
      unavailable ??= e;
    }
  }
  if (reads.length === 0 && unavailable) throw unavailable;
  return { hub: true, reads };
}

/** The one channel a read that cannot merge reads: channelReads', refused with `which_channel` (the served channels listed) when it would read several. */
export function oneChannelRead(ctx: EndpointContext, named: string | undefined, what: string): ChannelRead {
  const { hub, reads } = channelReads(ctx, named);
  const [one] = reads;
  if (hub || !one) {
    const names = ctx.channels().list.filter((c) => c.state === 'served').map((c) => c.name);
    throw whichChannel(`${names.length} channels are served here (${names.join(', ')}) and ${what} is of one`, names);
  }
  return one;
}
