/**
 * A `claimboard serve` of a spec's own, for specs that need a server configured otherwise than
 * the shared fixtures (a read token, a short stale_after, a folder to rename away, local agents):
 * the production build through bin/claimboard.mjs on a fresh temp copy of conformance vectors,
 * bound to 127.0.0.1 on a port the kernel picks, on the test clock (e2e/test-clock.ts), ready once
 * /api/board says so (at most 300 s), stopped by its pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BoardResponse } from '../lib/api/types';
import { freePort } from '../test/support/soak/proc';
import { letTimePass } from './test-clock';
import { get } from './http';

export const ROOT = path.resolve(import.meta.dirname, '..');

export interface OwnServer {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** The temp folder holding the channel and the index (removed by stop()). */
  readonly dir: string;
  /** The channel folder served (`<dir>/channel`). */
  readonly channel: string;
  /** What the server wrote to stderr so far. */
  readonly stderr: string[];
  readonly process: ChildProcess;
  /** Lets `ms` pass on the server's clock (e2e/test-clock.ts): files on the board so far age by it. */
  letTimePass(ms: number): Promise<void>;
  /** SIGTERM, then SIGKILL after 10 s; removes `dir`. */
  stop(): Promise<void>;
}

export interface OwnServerOptions {
  /** The temp folder's prefix, e.g. 'cb-e2e-health-'. */
  readonly prefix: string;
  /** Conformance vectors copied into the channel, in order (later ones over earlier ones). */
  readonly vectors: readonly string[];
  /** Extra `serve` arguments (e.g. ['--stale-after', '2']), or made from the temp folder. */
  readonly args?: readonly string[] | ((dir: string) => readonly string[]);
  /** Extra environment of the server, or made from the temp folder. */
  readonly env?: Readonly<Record<string, string>> | ((dir: string) => Readonly<Record<string, string>>);
  /** Headers of the readiness requests (e.g. the read token). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Runs after the channel is copied and before the server starts (e.g. writes more files). */
  readonly prepare?: (channel: string, dir: string) => void;
  /**
   * A hub: more channels served beside `vectors`' (named `channel`), each named and copied from
   * its conformance vectors into `<dir>/<name>`; the index files in `<dir>/.claimboard/index/`
   * (a hub takes no --db). Ready once every channel is read.
   */
  readonly hub?: Readonly<Record<string, readonly string[]>>;
  /** In a hub, the name `vectors`' channel is served by (default: its folder's, `channel`). */
  readonly name?: string;
}

/** Starts the server and waits until its first index is ready. Throws with its stderr when it exits or does not answer within 300 s. */
export async function startOwnServer(o: OwnServerOptions): Promise<OwnServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), o.prefix));
  const channel = path.join(dir, 'channel');
  const copy = (vectors: readonly string[], to: string) => {
    for (const v of vectors) fs.cpSync(path.join(ROOT, 'conformance/vectors', v, 'channel'), to, { recursive: true, force: true });
  };
  copy(o.vectors, channel);
  const more = Object.entries(o.hub ?? {});
  for (const [name, vectors] of more) copy(vectors, path.join(dir, name));
  o.prepare?.(channel, dir);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const stderr: string[] = [];
  const served = more.length === 0 ? [channel, '--db', path.join(dir, 'index.sqlite')] : [o.name ? `${o.name}=${channel}` : channel, ...more.map(([name]) => `${name}=${path.join(dir, name)}`)];
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/claimboard.mjs'), 'serve', ...served, '--port', String(port), '--host', '127.0.0.1', ...(typeof o.args === 'function' ? o.args(dir) : (o.args ?? []))], {
    cwd: more.length === 0 ? ROOT : dir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', CLAIMBOARD_TEST_CLOCK_FILE: path.join(dir, 'clock'), ...(typeof o.env === 'function' ? o.env(dir) : o.env) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (b: Buffer) => stderr.push(b.toString()));
  const stop = async () => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(child.pid, 'SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`claimboard serve exited ${child.exitCode}: ${stderr.join('')}`);
    }
    try {
      const r = await get(`${url}/api/board`, o.headers);
      const b = r.status === 200 ? ((await r.json()) as BoardResponse & { channels?: { read: boolean }[] }) : null;
      if (b && b.progress.phase === 'ready' && (b.channels ?? []).filter((c) => c.read).length === (more.length === 0 ? 0 : more.length + 1)) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`claimboard serve did not answer within 300 s: ${stderr.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const pass = (ms: number) => letTimePass({ url, file: path.join(dir, 'clock'), channel, headers: o.headers }, ms);
  return { url, dir, channel, stderr, process: child, letTimePass: pass, stop };
}
