/** A route parameter as text: percent-decoded when it is encoded, as given when it is malformed. */
export function routeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
