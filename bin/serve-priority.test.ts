/**
 * `claimboard serve` runs its indexer's thread 5 nice steps below the web server it starts
 * (bin/serve.ts yieldToWeb): on 2 cores the indexer's work otherwise takes CPU from the requests
 * an operator waits on. Read from /proc (Linux: the nice value is per thread; the main thread's
 * is the process's stat line). Needs the production build and /proc (skipped, and said, without).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dashboardBuilt, freePort, killAll, ServeProcess } from '../test/support/soak/proc';
import { VECTORS_DIR } from '../test/support/vectors';

const built = dashboardBuilt();
const procFs = fs.existsSync('/proc/self/stat');
if (!built) console.warn('serve-priority.test.ts: skipped: no production build (.next/BUILD_ID); run `npm run build` first');
if (!procFs) console.warn('serve-priority.test.ts: skipped: no /proc to read nice values from');

const dirs: string[] = [];
afterAll(() => {
  killAll();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** The nice value of a process's main thread (field 19 of /proc/<pid>/stat). */
function niceOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

describe.skipIf(!built || !procFs)('serve: the indexer yields the CPU to the web server', () => {
  it('the indexer thread is 5 nice steps below the web server, which keeps the nice serve was started with', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-priority-'));
    dirs.push(dir);
    const channel = path.join(dir, 'channel');
    fs.cpSync(path.join(VECTORS_DIR, '03-claimed-fresh', 'channel'), channel, { recursive: true });
    const serve = new ServeProcess({ channel, db: path.join(dir, 'index.sqlite'), port: await freePort(), staleAfterS: 300 });
    await serve.waitReady(300);
    const children = fs.readFileSync(`/proc/${serve.pid}/task/${serve.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
    expect(children).toHaveLength(1); // the web server
    const started = niceOf(process.pid); // serve inherits this process's
    expect(niceOf(children[0] as number)).toBe(started);
    expect(niceOf(serve.pid)).toBe(Math.min(19, started + 5));
  });
});
