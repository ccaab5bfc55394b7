/** A route parameter as text: percent-decoded when it is encoded, as given when it is malformed. */
export function routeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The page's `?channel=` (a hub's pages are of one channel, or of all of them without it), or undefined. */
export function channelSearchParam(sp: Readonly<Record<string, string | string[] | undefined>>): string | undefined {
  const c = [sp.channel].flat()[0];
  return c ? c : undefined;
}
