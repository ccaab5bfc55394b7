/**
 * An HTTP answer before it is a Web Response, and what the fast path looks at of a request:
 * the web process's fast path (fast-path.ts) writes an Answer straight to Node's response and
 * builds a ReadRequest from Node's request, with no Request or Response of the Fetch API between
 * (measured at 100,000 orders under 20 clients: those objects were about a sixth of the web
 * process's CPU). Next.js's route handlers turn the same Answer into a Response (next-route.ts).
 */

/** Status, headers and the body's bytes. */
export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** What the fast path looks at of a request: its URL as sent (`/api/board?q=...`, or absolute) and a header by name. */
export interface ReadRequest {
  readonly url: string;
  readonly header: (name: string) => string | null;
}
