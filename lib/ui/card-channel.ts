/**
 * The channel a card belongs to: a hub's answers name it on each card (lib/api/types.ts HubCard;
 * order ids repeat across channels), and the pages carry it in links (`?channel=`), query keys
 * and acts; lanes and selections key cards by it (a selection for a bulk act is of one channel). Pure.
 */

/** The card's `channel`, or undefined when the answer names none. */
export function channelOfCard(card: object): string | undefined {
  const c = (card as { channel?: unknown }).channel;
  return typeof c === 'string' && c !== '' ? c : undefined;
}

/** A card's key on a page (a lane's list, a selection): its channel and order id in a hub (order ids repeat across channels), its order id alone otherwise. */
export function cardKey(card: { readonly order_id: string; readonly channel?: unknown }): string {
  const c = channelOfCard(card);
  return c === undefined ? card.order_id : `${c}/${card.order_id}`;
}

/** The channels `cards` name, each once, sorted (empty when none names one: a serve of one channel). */
export function channelsOf(cards: readonly object[]): string[] {
  return [...new Set(cards.map(channelOfCard).filter((c): c is string => c !== undefined))].sort();
}

/** `card` naming `channel` (a card read again from its order's answer, which names the channel beside it, keeps the one it was opened in). */
export function cardInChannel<T extends object>(card: T, channel: string | undefined): T {
  return channel === undefined ? card : { ...card, channel };
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
