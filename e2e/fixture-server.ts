/**
 * The server a spec file runs against: each spec file starts its own `claimboard serve`
 * (e2e/own-server.ts) before its first test and stops it after its last, so spec files share no
 * state and the end-to-end tests run on several workers at once in any order.
 *
 *   const server = fixtureServer(MAIN);   // at the top of the spec file
 *   serveThisFile(server);                // pages open on it (baseURL)
 *   ... path.join(server.channel, 'tasks/a') ... await server.letTimePass(ms) ...
 */
import { test } from '@playwright/test';
import { startOwnServer, type OwnServer, type OwnServerOptions } from './own-server';

/** A spec file's server: its fields are there between the file's first and last test. */
export interface FixtureServer {
  readonly url: string;
  readonly channel: string;
  readonly dir: string;
  readonly stderr: readonly string[];
  letTimePass(ms: number): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A server of these options, started by `start()` (or `serveThisFile`). */
export function fixtureServer(options: OwnServerOptions): FixtureServer {
  let server: OwnServer | null = null;
  let starting: Promise<OwnServer> | null = null;
  const running = (): OwnServer => {
    if (server === null) throw new Error(`the ${options.prefix} server is not running: call serveThisFile() at the top of the spec file`);
    return server;
  };
  return {
    get url() {
      return running().url;
    },
    get channel() {
      return running().channel;
    },
    get dir() {
      return running().dir;
    },
    get stderr() {
      return running().stderr;
    },
    letTimePass: (ms) => running().letTimePass(ms),
    /** Starts the server once; later calls wait for the same start. */
    async start() {
      starting ??= startOwnServer(options);
      server = await starting;
    },
    async stop() {
      const s = starting;
      server = null;
      starting = null;
      await (await s)?.stop();
    },
  };
}

/** Starts `server` before the file's first test and stops it after its last; pages of the file open on it. */
export function serveThisFile(server: FixtureServer): void {
  test.beforeAll(async () => {
    await server.start();
  });
  test.afterAll(async () => {
    await server.stop();
  });
  // Playwright asks for baseURL as it sets up each test and hook, the file's beforeAll included
  // (before its body runs): the server is started from here too.
  test.use({
    baseURL: async ({}, use) => {
      await server.start();
      await use(server.url);
    },
  });
}
