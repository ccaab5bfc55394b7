/**
 * The environment settings (`CLAIMBOARD_*`): the one place that reads them. `claimboard serve`
 * sets most of them for its web server (bin/serve.ts); the rest are the operator's (README "CLI").
 *
 * Each getter reads its variable and parses it with zod once per distinct value (a test that
 * changes a variable between cases gets the new value; a server pays the parse once). An empty
 * value counts as unset. A value that does not parse throws an Error naming the variable, from
 * the getter that reads it only, so a bad setting breaks only what uses it.
 *
 * Server side only in effect: in the browser `process.env` holds none of these.
 */
import { z } from 'zod';
import { DEFAULT_STALE_AFTER_MS } from './ledger/channel';

/** Every variable claimboard reads. */
export const SETTING_NAMES = [
  'CLAIMBOARD_CHANNEL',
  'CLAIMBOARD_DB',
  'CLAIMBOARD_HUB',
  'CLAIMBOARD_STALE_AFTER_MS',
  'CLAIMBOARD_OPERATORS',
  'CLAIMBOARD_FERRYMAN_STATE',
  'CLAIMBOARD_READ_TOKEN',
  'CLAIMBOARD_READ_ONLY',
  'CLAIMBOARD_DEMO_OPERATOR_KEY',
  'CLAIMBOARD_NUDGE_SOCKET',
  'CLAIMBOARD_SERVED_HOSTS',
  'CLAIMBOARD_PROJECT_DIR',
  'CLAIMBOARD_WORKER_SCRIPT',
  'CLAIMBOARD_SKIP_SYNCTHING',
  'CLAIMBOARD_LOCAL_AGENTS',
  'CLAIMBOARD_FERRYMAN_WORKSPACES',
  'CLAIMBOARD_REAPER_STATE',
  'CLAIMBOARD_VERIFIER',
] as const;
export type SettingName = (typeof SETTING_NAMES)[number];

type Raw = string | undefined;

/**
 * A getter for `name`, read by `read` and parsed by `schema`; the last raw value and its parse
 * are kept. Each variable is read by a literal `process.env.NAME`, so that searching for it
 * finds its one reader here (deploy/claimboard-service.test.ts checks the documented ones so).
 */
function setting<T>(name: SettingName, read: () => Raw, schema: z.ZodType<T, Raw>): () => T {
  let last: { readonly raw: Raw; readonly value: T } | null = null;
  return () => {
    const raw = read() || undefined;
    if (last && last.raw === raw) return last.value;
    const r = schema.safeParse(raw);
    if (!r.success) throw new Error(`${name}: ${r.error.issues.map((i) => i.message).join('; ')}`);
    last = { raw, value: r.data };
    return r.data;
  };
}

const text = z.string().optional();
/** A list separated by `sep`, items trimmed, empty ones dropped. */
const list = (sep: string) =>
  z
    .string()
    .optional()
    .transform((v): readonly string[] =>
      (v ?? '')
        .split(sep)
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
    );

/** `1` switches it on; anything else (or nothing) leaves it off. */
const flag = z
  .string()
  .optional()
  .transform((v) => v === '1');

/**
 * The settings, one typed getter each. Paths are as given (relative ones resolve against the
 * process's working directory where they are used).
 */
export const settings = {
  /** The channel `claimboard serve` serves when none is given on the command line, or undefined (the web process reads the served channel from the index). */
  channel: setting('CLAIMBOARD_CHANNEL', () => process.env.CLAIMBOARD_CHANNEL, text),
  /** The index database file, or undefined (the web server then has no index). */
  dbFile: setting('CLAIMBOARD_DB', () => process.env.CLAIMBOARD_DB, text),
  /** The served-channel registry (lib/hub/registry.ts) `claimboard serve` keeps for its web server, or undefined: the one channel of CLAIMBOARD_DB. */
  hubRegistry: setting('CLAIMBOARD_HUB', () => process.env.CLAIMBOARD_HUB, text),
  /** stale_after for `claimboard reap`, ms; default DEFAULT_STALE_AFTER_MS (300 000). */
  staleAfterMs: setting(
    'CLAIMBOARD_STALE_AFTER_MS',
    () => process.env.CLAIMBOARD_STALE_AFTER_MS,
    z
      .string()
      .optional()
      .transform((v) => (v === undefined ? DEFAULT_STALE_AFTER_MS : Number(v)))
      .pipe(z.number({ error: 'expected a number of milliseconds' }).positive()),
  ),
  /** Configured operators (`CLAIMBOARD_OPERATORS=name,name`); empty: roster roles decide. */
  operators: setting(
    'CLAIMBOARD_OPERATORS',
    () => process.env.CLAIMBOARD_OPERATORS,
    z
      .string()
      .optional()
      .transform((v): readonly string[] =>
        (v ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s.length > 0),
      ),
  ),
  /** ferry's state directory on this machine (`--ferryman-state`), or undefined. */
  ferrymanState: setting('CLAIMBOARD_FERRYMAN_STATE', () => process.env.CLAIMBOARD_FERRYMAN_STATE, text),
  /** Agents local to this machine (`serve --local-agent`, comma-separated), or empty. */
  localAgents: setting('CLAIMBOARD_LOCAL_AGENTS', () => process.env.CLAIMBOARD_LOCAL_AGENTS, list(',')),
  /** Local agents' ferry workspaces (`serve --ferryman-workspace`, separated by `:` as PATH is), or empty. */
  ferrymanWorkspaces: setting('CLAIMBOARD_FERRYMAN_WORKSPACES', () => process.env.CLAIMBOARD_FERRYMAN_WORKSPACES, list(':')),
  /** The reaper's state directory (`serve --reap-state`; lib/local/reaper-state.ts), or undefined: its default. */
  reaperState: setting('CLAIMBOARD_REAPER_STATE', () => process.env.CLAIMBOARD_REAPER_STATE, text),
  /** The read token readers must present ('' when none is required). */
  readToken: setting(
    'CLAIMBOARD_READ_TOKEN',
    () => process.env.CLAIMBOARD_READ_TOKEN,
    z
      .string()
      .optional()
      .transform((v) => v ?? ''),
  ),
  /** `CLAIMBOARD_READ_ONLY=1`: the board offers and accepts no action. */
  readOnly: setting('CLAIMBOARD_READ_ONLY', () => process.env.CLAIMBOARD_READ_ONLY, flag),
  /** The demo operator's seed file (demo mode only), or undefined. */
  demoOperatorKey: setting('CLAIMBOARD_DEMO_OPERATOR_KEY', () => process.env.CLAIMBOARD_DEMO_OPERATOR_KEY, text),
  /** The Host header values the web server answers to (set by `claimboard serve`: lib/security.ts servedHosts), or empty: not checked. */
  servedHosts: setting('CLAIMBOARD_SERVED_HOSTS', () => process.env.CLAIMBOARD_SERVED_HOSTS, list(',')),
  /** The indexer's nudge socket (lib/index/nudge.ts), or undefined. */
  nudgeSocket: setting('CLAIMBOARD_NUDGE_SOCKET', () => process.env.CLAIMBOARD_NUDGE_SOCKET, text),
  /** The installed package or checkout (set by bin/claimboard.mjs), or undefined. */
  projectDir: setting('CLAIMBOARD_PROJECT_DIR', () => process.env.CLAIMBOARD_PROJECT_DIR, text),
  /** The bundled index worker script (set by bin/claimboard.mjs), or undefined (tests: the sources). */
  workerScript: setting('CLAIMBOARD_WORKER_SCRIPT', () => process.env.CLAIMBOARD_WORKER_SCRIPT, text),
  /**
   * Which Ed25519 verifier to use (lib/index/disk/verifier.ts): `node` forces node:crypto, `sodium`
   * requires sodium-native (an Error when it cannot load); unset: sodium-native when it loads.
   */
  verifier: setting('CLAIMBOARD_VERIFIER', () => process.env.CLAIMBOARD_VERIFIER, z.enum(['node', 'sodium'], { error: "expected 'node' or 'sodium'" }).optional()),
  /** `CLAIMBOARD_SKIP_SYNCTHING=1`: the real-Syncthing test is skipped. */
  skipSyncthing: setting('CLAIMBOARD_SKIP_SYNCTHING', () => process.env.CLAIMBOARD_SKIP_SYNCTHING, flag),
} as const;
