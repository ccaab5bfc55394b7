/**
 * Hub test folders: a temporary folder per test, with conformance vector channels copied into
 * it under the names a test gives them (lib/hub's tests).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { Hub } from '../../lib/hub/hub';
import type { ChannelSpec } from '../../lib/hub/args';
import { nodeVerify } from '../../lib/index/disk/node-verify';
import { VECTORS_DIR } from './vectors';

/** A new empty temporary folder (its real path, so that paths compare as the hub sees them). */
export function tempFolder(prefix = 'cb-hub-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  fs.chmodSync(dir, 0o755);
  return dir;
}

/**
 * `temp()` for a test file: a new temporary folder each call, all of them removed after each
 * test (call it at the top of the file, before any afterEach that must run first: vitest runs
 * the after-hooks last registered first).
 */
export function tempFolders(prefix?: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) removeFolder(d);
  });
  return () => {
    const d = tempFolder(prefix);
    dirs.push(d);
    return d;
  };
}

/** Removes a temporary folder, giving its owner back every permission a test took away first. */
export function removeFolder(dir: string): void {
  spawnSync('chmod', ['-R', 'u+rwx', dir]);
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Copies the channel of conformance vector `vector` to `dest` (which must not exist); returns `dest`. */
export function copyVectorChannel(vector: string, dest: string): string {
  fs.cpSync(path.join(VECTORS_DIR, vector, 'channel'), dest, { recursive: true });
  return dest;
}

/** Copies order `id` of conformance vector `vector`'s channel into the channel at `root` (its tasks/ folder); returns `root`. */
export function copyVectorOrder(vector: string, id: string, root: string): string {
  fs.cpSync(path.join(VECTORS_DIR, vector, 'channel', 'tasks', id), path.join(root, 'tasks', id), { recursive: true });
  return root;
}

/** Copies the channel of the real-ferry conformance case `name` (conformance/ferry/<name>/channel) to `dest`; returns `dest`. */
export function copyFerryChannel(name: string, dest: string): string {
  fs.cpSync(path.join(VECTORS_DIR, '..', 'ferry', name, 'channel'), dest, { recursive: true });
  return dest;
}

/**
 * The web side of a hub for the endpoints under test: CLAIMBOARD_HUB names the registry `file`
 * and CLAIMBOARD_DB is unset, until the function returned puts both back as they were (the unit
 * files share one process: the next file finds the environment it started with).
 */
export function asHubWeb(file: string): () => void {
  const saved = { CLAIMBOARD_HUB: process.env.CLAIMBOARD_HUB, CLAIMBOARD_DB: process.env.CLAIMBOARD_DB };
  process.env.CLAIMBOARD_HUB = file;
  delete process.env.CLAIMBOARD_DB;
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

/**
 * A hub of the channels in `parents` (and `specs`) under `t`, each indexed once into
 * `t/index/<folder>.sqlite` (no watching, signatures verified in this process), started, and the
 * endpoints' environment set to its registry (asHubWeb); `stop` stops it and puts it back.
 */
export async function servedHub(t: string, o: { parents: readonly string[]; specs?: readonly ChannelSpec[]; staleAfterMs: number }): Promise<{ stop(): Promise<void> }> {
  const index = path.join(t, 'index');
  const registryFile = path.join(index, 'channels.json');
  const hub = new Hub({
    specs: o.specs ?? [],
    parents: o.parents,
    registryFile,
    dbFileOf: (root) => path.join(index, `${path.basename(root)}.sqlite`),
    staleAfterMsOf: () => o.staleAfterMs,
    log: () => {},
    indexer: { watch: false, verify: nodeVerify, workers: 0 },
  });
  await hub.start(3_600_000);
  const restoreEnv = asHubWeb(registryFile);
  return {
    async stop() {
      await hub.stop();
      restoreEnv();
    },
  };
}
