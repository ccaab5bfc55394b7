/**
 * `claimboard state` of several channels: the arguments a hub's `serve` takes (`path`,
 * `name=path`, `--channels-in <parent>`), each channel derived as the hub serves it (its own
 * stale_after, its `channel:name` operators; no reaper holds and no ferry state of this machine,
 * which a hub refuses) and printed in its own block. One plain channel is not this (bin/cli.ts).
 */
import fs from 'node:fs';
import { demoManifestPath } from '../lib/demo/manifest-path';
import { parseChannelArgs, operatorsOf } from '../lib/hub/args';
import { ChannelSet } from '../lib/hub/channel-set';
import { channelStateOf } from '../lib/index/channel-state';
import { ChannelUnreadableError, unlistedFolders } from '../lib/index/disk/read-channel';
import { settings } from '../lib/config';
import { staleAfterMsFor } from './stale-after-for';
import { hubStateJson, hubStateTable, type NamedState } from './format';

export interface HubStateOptions {
  readonly channels: readonly string[];
  readonly parents: readonly string[];
  readonly json: boolean;
  readonly nowMs?: number;
  readonly staleAfterS?: number;
  /** This machine's options a hub refuses, as given. */
  readonly ferrymanState?: string;
  readonly ferrymanPins?: string;
  readonly reapState?: string;
}

/** What `state` of several channels printed and its exit code: 0, 1 (a channel or a parent could not be read: the others are printed), 2 (bad usage). */
export interface HubStateRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: readonly string[];
}

/**
 * Why these options cannot go with several channels: each is a fact of one workspace on this
 * machine, as `serve` refuses them in a hub (bin/serve-hub.ts hubRefusals).
 */
function refusals(o: HubStateOptions): string[] {
  const many = 'with several channels or --channels-in';
  const why: string[] = [];
  if (o.ferrymanState !== undefined) why.push(`--ferryman-state is one workspace's fleet roster on this machine: it is refused ${many}`);
  if (o.ferrymanPins !== undefined) why.push(`--ferryman-pins is one workspace's pinned keys on this machine: it is refused ${many}`);
  if (o.reapState !== undefined) why.push(`--reap-state is the reaper of one channel on this machine: it is refused ${many}`);
  return why;
}

/**
 * Derives and prints the channels in the order the command line gives them (its channels, then
 * each parent's children by folder name), names checked as a hub checks them (lib/hub/channel-set.ts).
 * A folder a parent holds that is not served is said on stderr and changes nothing else; a
 * channel named on the command line or a parent that cannot be read is said and makes the exit
 * code 1, the other channels printed all the same.
 */
export function stateOfChannels(opts: HubStateOptions, cwd: string): HubStateRun {
  const stderr: string[] = [];
  const refused = refusals(opts);
  const parsed = parseChannelArgs(opts.channels, opts.parents, cwd);
  if (!parsed.ok || refused.length > 0) return { code: 2, stdout: '', stderr: [...(parsed.ok ? [] : parsed.reasons), ...refused] };

  let code = 0;
  const named = new Set([...parsed.specs.map((s) => s.root), ...parsed.parents]);
  const found = new ChannelSet(parsed.specs, parsed.parents).rescan();
  for (const n of found.notices) {
    stderr.push(`${n.name ?? n.root}: ${n.reason}`);
    if (named.has(n.root)) code = 1;
  }
  const states: NamedState[] = [];
  for (const c of found.added) {
    const staleAfterMs = staleAfterMsFor(c.root, opts.staleAfterS);
    try {
      const state = channelStateOf(c.root, { nowMs: opts.nowMs, staleAfterMs, operators: operatorsOf(settings.operators(), c.name, true) });
      states.push({ name: c.name, root: c.root, state });
      if (!opts.json) {
        const which = opts.staleAfterS !== undefined ? '' : fs.existsSync(demoManifestPath(c.root)) ? " (the demo's, as serve serves it)" : ' (the default; serve uses its own --stale-after)';
        stderr.push(`${c.name}: stale after ${staleAfterMs / 1000} s${which}`);
      }
      const unlisted = unlistedFolders(state.problems);
      if (unlisted.length > 0) {
        stderr.push(`${c.name}: ${unlisted.join(', ')} cannot be listed: its board is incomplete`);
        code = 1;
      }
    } catch (e) {
      if (!(e instanceof ChannelUnreadableError)) throw e;
      stderr.push(`${c.name}: ${e.message}`);
      code = 1;
    }
  }
  if (found.added.length === 0) {
    stderr.push('no channel found');
    code = 1;
  }
  const stdout = states.length === 0 ? '' : opts.json ? JSON.stringify(hubStateJson(states)) + '\n' : hubStateTable(states, opts.nowMs ?? Date.now());
  return { code, stdout, stderr };
}
