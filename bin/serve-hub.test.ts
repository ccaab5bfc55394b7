/** `claimboard serve` with several channels, through the real launcher: what a hub refuses before serving anything (exit 2). */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VECTORS_DIR } from '../test/support/vectors';
import { hubRefusals } from './serve-hub';

const ROOT = path.resolve(__dirname, '..');
const run = (args: string[]) => spawnSync(process.execPath, [path.join(ROOT, 'bin/claimboard.mjs'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
const V01 = path.join(VECTORS_DIR, '01-open', 'channel');
const V09 = path.join(VECTORS_DIR, '09-done', 'channel');

describe('claimboard serve with several channels', () => {
  it("refuses this machine's options and one index file, each said, before serving anything; alerts are taken", () => {
    const r = run(['serve', `a=${V01}`, `b=${V09}`, '--db', '/tmp/x.sqlite', '--ferryman-pins', '/tmp/pins', '--local-agent', 'fang', '--alert-command', 'cat']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      'claimboard: --db names one index file: it is refused with several channels or --channels-in (each channel keeps its own, ./.claimboard/index/<hash>.sqlite)',
      "claimboard: --ferryman-pins is one workspace's pinned keys on this machine: it is refused with several channels or --channels-in",
      "claimboard: --local-agent, --ferryman-workspace and the reaper (--reap...) are this machine's agents of one channel: they are refused with several channels or --channels-in",
    ]);
  });

  it('refuses channel arguments that clash: both folders are named "channel"', () => {
    const r = run(['serve', V01, V09]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(`claimboard: "${V09}": the name "channel" is already given to "${V01}"; give one of them another as name=path`);
  });

  it('refuses --ferryman-state given with a parent folder, and nothing when no such option is given', () => {
    expect(hubRefusals({ ferrymanState: '/s', local: false })).toEqual(["--ferryman-state is one workspace's fleet roster on this machine: it is refused with several channels or --channels-in"]);
    expect(hubRefusals({ local: false })).toEqual([]);
  });
});
