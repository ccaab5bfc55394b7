import 'server-only';
/**
 * The Next.js adapter of an endpoint (endpoint.ts): the route handler a route.ts under app/
 * exports, a Fetch API Request in and a Response out, through the one executor.
 */
import { pathParams, runEndpoint, type Endpoint, type StreamAnswer } from './endpoint';
import type { Answer } from './answer';

/** The Fetch API Response of an executor's answer. */
export function toResponse(a: Answer | StreamAnswer): Response {
  if ('stream' in a) return new Response(a.stream, { status: a.status, headers: a.headers });
  // Buffers from Buffer.from(string) sit on a plain ArrayBuffer (the type allows a shared one).
  return new Response(a.body as Uint8Array<ArrayBuffer>, { status: a.status, headers: a.headers });
}

/** What Next.js passes a route handler beside the request: the path's parameters. */
export interface RouteContext {
  readonly params: Promise<Record<string, string>>;
}

/**
 * The route handler of `endpoint`. One without path parameters answers synchronously when its
 * work does (the read endpoints); one with them waits for Next.js's params first.
 */
export function nextRoute<Req>(endpoint: Endpoint<Req>): (req: Request, route?: RouteContext) => Response | Promise<Response> {
  const named = pathParams(endpoint).length > 0;
  const run = (req: Request, params: Readonly<Record<string, string>>): Response | Promise<Response> => {
    const a = runEndpoint(endpoint, { url: req.url, header: (n) => req.headers.get(n), params, request: req });
    return a instanceof Promise ? a.then(toResponse) : toResponse(a);
  };
  return (req, route) => (named && route ? route.params.then((p) => run(req, p)) : run(req, {}));
}
