/**
 * A request from a test to its test server, on a connection of its own (`Connection: close`).
 * Node's fetch keeps a connection open between requests and the server closes one idle for 5 s:
 * a request sent on it as the server closes it fails ("other side closed"), which a loaded
 * machine's late timers made happen between a server's start and a spec's first request. A
 * browser sends such a request again by itself; a test must not depend on when timers fire.
 */
export function get(url: string, headers: Readonly<Record<string, string>> = {}): Promise<Response> {
  return fetch(url, { headers: { ...headers, connection: 'close' } });
}
