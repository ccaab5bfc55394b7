/**
 * The channel a card belongs to: a hub's answers name it on each card (lib/api/types.ts HubCard;
 * order ids repeat across channels), and the pages carry it in links (`?channel=`), query keys
 * and acts. Pure.
 */

/** The card's `channel`, or undefined when the answer names none. */
export function channelOfCard(card: object): string | undefined {
  const c = (card as { channel?: unknown }).channel;
  return typeof c === 'string' && c !== '' ? c : undefined;
}

/**
 * `path` (which may have a query already) as a page of `channel` in a hub: `?channel=<name>`
 * added; with no channel (one channel served) the path as it is, so a serve of one channel links
 * as it always did.
 */
export function inChannel(path: string, channel?: string | null): string {
  if (!channel) return path;
  return `${path}${path.includes('?') ? '&' : '?'}channel=${encodeURIComponent(channel)}`;
}

/** The channels to pick from of an error body refusing a read of several channels (`which_channel` with its `channels`), else null. */
export function whichChannelsOf(body: unknown): string[] | null {
  if (!body || typeof body !== 'object') return null;
  const { reason_code: code, channels } = body as { reason_code?: unknown; channels?: unknown };
  if (code !== 'which_channel' || !Array.isArray(channels)) return null;
  return channels.filter((c): c is string => typeof c === 'string');
}
