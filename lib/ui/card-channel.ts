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
