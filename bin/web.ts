/**
 * The web process `claimboard serve` starts (`claimboard web`, hidden): Next.js's production
 * server for everything, behind Node's own HTTP server whose fast path answers the two polled
 * read endpoints itself (lib/api/fast-path.ts), and the build's static files from memory
 * (lib/api/static-files.ts). It reads the index only (CLAIMBOARD_DB, opened
 * read-only by the handlers); serve, its parent, owns the index and passes everything else in
 * the environment, as it did for `next start`.
 */
import http from 'node:http';
import path from 'node:path';
import { answerFast, fastHandler } from '../lib/api/fast-path';
import { staticFiles } from '../lib/api/static-files';
import { PROJECT_DIR } from './project-dir';
import { CLIENT_ADDRESS_HEADER, refusedAtDoor } from '../lib/security';
import { settings } from '../lib/config';

/** How long a stop lets event streams end by themselves before they are cut, ms. */
const WEB_DRAIN_MS = 2000;

/**
 * Serves the built dashboard (PROJECT_DIR/.next) on `host`:`port` until SIGTERM or SIGINT (or,
 * with `exitWithStdin`, until its standard input closes: serve, its parent, is gone);
 * resolves with the exit code (143, 130; 1 when it could not listen). On a stop it takes no new
 * connections and exits once the open answers have ended (the event streams end themselves on
 * the signal; a stream still open after 2 s is cut, and new ones are answered 204); serve kills
 * it should that take more than 5 s.
 */
export async function webServer(opts: { host: string; port: number; exitWithStdin?: boolean }): Promise<number> {
  // Next.js reads NODE_ENV to pick its production code paths, as `next start` sets it.
  (process.env as Record<string, string>).NODE_ENV = 'production';
  const { default: next } = await import('next');
  const app = next({ dev: false, dir: PROJECT_DIR, hostname: opts.host, port: opts.port });
  const handle = app.getRequestHandler();
  const assets = staticFiles(path.join(PROJECT_DIR, '.next', 'static'));
  await app.prepare();
  let stopping = false;
  // The event streams open now: cut WEB_DRAIN_MS after a stop should they still be open.
  const streams = new Set<http.ServerResponse>();
  const allowedHosts = settings.servedHosts();
  const server = http.createServer((req, res) => {
    const refused = refusedAtDoor(req.method, req.url, (n) => {
      const v = req.headers[n];
      return Array.isArray(v) ? v.join(', ') : v;
    }, allowedHosts);
    if (refused) {
      res.writeHead(refused.status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'close' }).end(refused.message + '\n');
      return;
    }
    // The routes' rate limits key on the address the connection comes from, never on what the client says.
    req.headers[CLIENT_ADDRESS_HEADER] = req.socket.remoteAddress ?? 'unknown';
    if (req.url?.startsWith('/api/events')) {
      // Once stopping, no new stream (the route module may not even be loaded to hear the signal).
      if (stopping) {
        res.writeHead(204, { 'Cache-Control': 'no-store', Connection: 'close' }).end();
        return;
      }
      streams.add(res);
      res.once('close', () => streams.delete(res));
    }
    const fast = fastHandler(req.method, req.url);
    if (fast) answerFast(req, res, fast);
    else if (!assets(req, res)) void handle(req, res);
  });
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', (e) => {
      console.error(`claimboard: the web server cannot listen on ${opts.host}:${opts.port}: ${e.message}`);
      resolve(false);
    });
    server.listen(opts.port, opts.host, () => resolve(true));
  });
  if (!listening) return 1;
  console.log(`claimboard: web server ready on ${opts.host}:${opts.port}`);
  return await new Promise<number>((resolve) => {
    const stop = (code: number) => {
      stopping = true;
      // A kept-alive connection can carry one more request after close() (a tab's EventSource
      // reconnects on it a second after its stream ended): idle ones are closed as they become
      // idle, and an event stream still open after WEB_DRAIN_MS is cut. Other answers (an
      // operator's action being written) are left to finish; serve kills this process 5 s
      // after its SIGTERM.
      const idle = setInterval(() => server.closeIdleConnections(), 100);
      const cut = setTimeout(() => {
        for (const res of streams) res.destroy();
      }, WEB_DRAIN_MS);
      server.close(() => {
        clearInterval(idle);
        clearTimeout(cut);
        void app.close().finally(() => resolve(code));
      });
      server.closeIdleConnections();
    };
    process.once('SIGTERM', () => stop(143));
    process.once('SIGINT', () => stop(130));
    if (opts.exitWithStdin) {
      // serve holds the other end of stdin: its end means serve is gone (even by SIGKILL), and
      // this process must not keep the port serving a board nobody indexes.
      process.stdin.on('data', () => {});
      let gone = false;
      const parentGone = () => {
        if (gone) return;
        gone = true;
        console.error('claimboard: serve is gone: the web server stops');
        stop(143);
        setTimeout(() => process.exit(143), WEB_DRAIN_MS + 3000).unref();
      };
      process.stdin.once('end', parentGone);
      process.stdin.once('close', parentGone);
      process.stdin.once('error', parentGone);
      process.stdin.resume();
    }
  });
}
