import 'server-only';
/**
 * The demo's cast: the operator, the orchestrator, the workers (one silent, one retired), each
 * one's role and clock skew, where their seeds live (outside the synced folder) and how an
 * identity is loaded from there.
 */
import path from 'node:path';
import { readKeyFile, type Identity } from './identity';

const MIN = 60_000;
const HOUR = 60 * MIN;

/** The demo's operator (role `operator`). */
export const DEMO_OPERATOR = 'ops';
/** The fleet's orchestrator (role `orchestrator`): issues some orders and runs `ferry channel retire`. */
export const DEMO_ORCHESTRATOR = 'orchestrator';
/** Workers the simulated fleet runs. */
export const DEMO_WORKERS: readonly string[] = ['fang', 'wisp', 'nebra', 'kestrel'];
/** A worker that holds work and never comes back (its claims go stale: `agent_silent`). */
export const DEMO_SILENT: readonly string[] = ['ghost'];
/** A worker retired by the operator in the story (its machine was rebuilt). */
export const DEMO_RETIRED: readonly string[] = ['moth'];

/**
 * Each identity's clock minus this machine's clock, ms: wisp runs 3 h ahead, nebra 2 h behind,
 * so writer times differ from local arrival times.
 */
export const DEMO_CLOCK_OFFSETS_MS: Readonly<Record<string, number>> = {
  ops: 0,
  orchestrator: 0,
  fang: 0,
  wisp: 3 * HOUR,
  nebra: -2 * HOUR,
  kestrel: 45_000,
  ghost: -7 * MIN,
  moth: 0,
};

/** Each identity's roster entry: its role and capabilities. */
export const DEMO_ROLES: Readonly<Record<string, { role: string; capabilities: string[] }>> = {
  ops: { role: 'operator', capabilities: [] },
  orchestrator: { role: 'orchestrator', capabilities: ['messages.receive'] },
  fang: { role: 'worker', capabilities: ['rust', 'docker', 'api'] },
  wisp: { role: 'worker', capabilities: ['typescript', 'playwright', 'web'] },
  nebra: { role: 'worker', capabilities: ['postgres', 'python', 'db'] },
  kestrel: { role: 'worker', capabilities: ['go', 'benchmarks', 'docs'] },
  ghost: { role: 'worker', capabilities: ['typescript', 'search'] },
  moth: { role: 'worker', capabilities: ['security'] },
};

/** `<parent of dir>/keys`: where the demo keeps seeds, outside the synced folder. */
export function demoKeysDir(dir: string): string {
  return path.join(path.dirname(path.resolve(dir)), 'keys');
}

/**
 * The identity `name` of a demo whose seeds are in `keysDir`, with its demo clock offset
 * (overridden by `offsets`). Throws when the key file is missing or malformed.
 */
export function loadDemoIdentity(keysDir: string, name: string, offsets: Readonly<Record<string, number>> = {}): Identity {
  return {
    name,
    seedHex: readKeyFile(path.join(keysDir, `${name}.key`)),
    clockOffsetMs: offsets[name] ?? DEMO_CLOCK_OFFSETS_MS[name] ?? 0,
  };
}
