import 'server-only';
/**
 * One-shot derivation of a folder on disk (what `claimboard state` prints): reads the folder
 * with ctimes as arrivals and derives it with node:crypto verification.
 */
import { deriveChannel, type ChannelState } from '../ledger/channel';
import { serverVerify } from './disk/verifier';
import { readChannel } from './disk/read-channel';
import type { FleetAgent } from './ferryman-state';

/** Options, all on this machine's clock. */
export interface StateOptions {
  /** Evaluation time, ms since the epoch (default: Date.now()). */
  readonly nowMs?: number;
  /** stale_after, ms (default 300 000). */
  readonly staleAfterMs?: number;
  /** Configured operators (CLAIMBOARD_OPERATORS). */
  readonly operators?: readonly string[];
  /** This machine's ferry fleet roster (ferryman-state.ts). */
  readonly fleetAgents?: readonly FleetAgent[];
  /** Keys ferry on this machine pinned (ferryman-state.ts): they override the folder's keys. */
  readonly pins?: ReadonlyMap<string, string>;
}

/** Reads and derives the channel at `root`. Throws ChannelUnreadableError when it is not a readable channel. */
export function channelStateOf(root: string, options: StateOptions = {}): ChannelState {
  const entries = readChannel(root);
  return deriveChannel(entries, {
    nowMs: options.nowMs ?? Date.now(),
    staleAfterMs: options.staleAfterMs,
    operators: options.operators,
    fleetAgents: options.fleetAgents,
    pins: options.pins,
    verify: serverVerify,
  });
}
