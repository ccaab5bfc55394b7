/**
 * `claimboard serve <channel>... [--channels-in <parent>]...`: one serve carrying several channels
 * (a hub). Each channel is indexed into its own file (the one a serve of it alone uses, so its
 * index stays warm), the folders are looked at again every `--rescan` seconds (lib/hub/hub.ts),
 * and the web server reads the channels from the registry. A serve of one channel (bin/serve.ts)
 * is not this. An operator act names its channel (lib/api/acts.ts); CLAIMBOARD_OPERATORS entries
 * are `channel:name` in a hub (lib/hub/args.ts operatorsOf); each channel has its own alerts,
 * which name it. Until this machine's agents know which channel they are about, a hub refuses
 * the options that would need them.
 */
import path from 'node:path';
import { operatorsOf, parseChannelArgs } from '../lib/hub/args';
import { Hub, type ChannelFollower } from '../lib/hub/hub';
import { AlertEngine, targetLabel, type AlertTarget } from '../lib/alerts/engine';
import type { DB } from '../lib/index/db';
import { listenForNudges, nudgeSocketPath } from '../lib/index/nudge';
import { HUB_REGISTRY_NAME } from '../lib/hub/registry';
import { settings } from '../lib/config';
import { staleAfterMsFor } from './stale-after-for';
import { addressRefused, defaultBaseUrl, defaultDbFile, ensureDashboard, startWeb, untilStopped } from './serve';

export interface HubServeOptions {
  /** `path` or `name=path` arguments, one channel each. */
  readonly channels: readonly string[];
  /** `--channels-in` folders: each child folder that is a channel is one. */
  readonly parents: readonly string[];
  readonly port: number;
  readonly host: string;
  /** stale_after in seconds for every channel (default: each channel's own, bin/stale-after-for.ts). */
  readonly staleAfterS?: number;
  /** Seconds between two looks at the folders (this machine's clock; it decides only when to look). */
  readonly rescanS: number;
  readonly publicUrls?: readonly string[];
  /** Order folders watched at most, shared by the channels. */
  readonly maxWatches?: number;
  /** Alerts as a serve of one channel takes them (bin/serve.ts), one engine per channel, each message naming its channel. */
  readonly alertWebhooks?: readonly URL[];
  readonly alertCommand?: string;
  readonly alertAfterS?: number;
  readonly alertBaseUrl?: string;
}

/** The options `serve` takes that a hub refuses, as given (a name and whether it was given). */
export interface HubRefusable {
  readonly db?: string;
  readonly ferrymanState?: string;
  readonly ferrymanPins?: string;
  readonly local: boolean;
}

/**
 * Why a hub cannot be served with these options, one reason each (empty: it can). `--db` names
 * one file where a hub keeps one per channel; `--ferryman-state`, `--ferryman-pins`, the local
 * agents and the reaper are facts of one workspace on this machine, which a hub's channels do not
 * share.
 */
export function hubRefusals(o: HubRefusable): string[] {
  const why: string[] = [];
  const many = 'with several channels or --channels-in';
  if (o.db !== undefined) why.push(`--db names one index file: it is refused ${many} (each channel keeps its own, ./.claimboard/index/<hash>.sqlite)`);
  if (o.ferrymanState !== undefined) why.push(`--ferryman-state is one workspace's fleet roster on this machine: it is refused ${many}`);
  if (o.ferrymanPins !== undefined) why.push(`--ferryman-pins is one workspace's pinned keys on this machine: it is refused ${many}`);
  if (o.local) why.push(`--local-agent, --ferryman-workspace and the reaper (--reap...) are this machine's agents of one channel: they are refused ${many}`);
  return why;
}

/**
 * The alerts of each channel (lib/alerts/engine.ts, one engine per channel on its own index, as
 * a serve of one channel has), each message naming its channel (`channelName`) and linking with
 * `?channel=`; undefined without a target.
 */
export function alertsOf(opts: HubServeOptions, log: (line: string) => void): ((name: string, root: string, db: DB) => ChannelFollower) | undefined {
  const targets: AlertTarget[] = [...(opts.alertWebhooks ?? []).map((url) => ({ kind: 'webhook' as const, url })), ...(opts.alertCommand ? [{ kind: 'command' as const, command: opts.alertCommand }] : [])];
  if (targets.length === 0) {
    if (opts.alertAfterS !== undefined || opts.alertBaseUrl !== undefined) log('--alert-after and --alert-base-url do nothing without --alert-webhook or --alert-command');
    return undefined;
  }
  const baseUrl = opts.alertBaseUrl ?? defaultBaseUrl(opts.host, opts.port);
  log(`alerts of each channel to ${targets.map(targetLabel).join(', ')}${opts.alertAfterS ? ` after a quiet period of ${opts.alertAfterS} s` : ''}, linking to ${baseUrl}`);
  return (name, root, db) => {
    const engine = new AlertEngine({
      db,
      channel: root,
      channelName: name,
      staleAfterMs: staleAfterMsFor(root, opts.staleAfterS),
      targets,
      afterMs: (opts.alertAfterS ?? 0) * 1000,
      baseUrl,
      log: (line) => log(`${name}: ${line}`),
    });
    return { settled: () => engine.poke(), rebuilt: (d) => engine.useDb(d), start: () => engine.start(), stop: () => engine.stop() };
  };
}

/** Runs a hub until interrupted or until the web server exits. Resolves to the exit code. */
export async function serveHub(opts: HubServeOptions): Promise<number> {
  const parsed = parseChannelArgs(opts.channels, opts.parents, process.cwd());
  if (!parsed.ok) {
    for (const r of parsed.reasons) console.error(`claimboard: ${r}`);
    return 2;
  }
  const refused = await addressRefused(opts.host, opts.port);
  if (refused !== null) return refused;

  const registryFile = path.join(path.dirname(defaultDbFile('.')), HUB_REGISTRY_NAME);
  const log = (line: string) => console.log(`claimboard: ${line}`);
  for (const e of settings.operators()) if (!e.includes(':')) log(`CLAIMBOARD_OPERATORS entry ${e} names no channel: a hub takes channel:name entries, and ignores it`);
  const hub = new Hub({
    specs: parsed.specs,
    parents: parsed.parents,
    registryFile,
    dbFileOf: defaultDbFile,
    staleAfterMsOf: (root) => staleAfterMsFor(root, opts.staleAfterS),
    operatorsOf: (name) => operatorsOf(settings.operators(), name, true),
    ...(opts.maxWatches !== undefined ? { maxWatches: opts.maxWatches } : {}),
    log,
    followerOf: alertsOf(opts, log),
  });
  // The web server starts at once; each channel's board shows its progress until its first index is done.
  void hub.start(opts.rescanS * 1000).then(
    () => log(`${hub.registry().filter((e) => e.state === 'served').length} channel(s) indexed; looking for more every ${opts.rescanS} s`),
    (e: unknown) => log(`the channels could not be looked at: ${e instanceof Error ? e.message : String(e)}`),
  );

  const built = await ensureDashboard();
  if (!built.ok) {
    console.error(`claimboard: ${built.why}`);
    await hub.stop();
    return 1;
  }
  // The web server tells each channel's indexer what an operator action wrote there (lib/index/nudge.ts: lines name their channel).
  const nudgeSocket = nudgeSocketPath();
  const stopNudges = await listenForNudges(nudgeSocket, (rel, name) => {
    if (name !== null) hub.indexerOf(name)?.request(rel);
  }).catch((e: unknown) => {
    log(`no nudge socket (${e instanceof Error ? e.message : String(e)}); actions show when the folder is next looked at`);
    return null;
  });
  const web = startWeb(opts.host, opts.port, opts.publicUrls ?? [], {
    CLAIMBOARD_HUB: registryFile,
    ...(stopNudges ? { CLAIMBOARD_NUDGE_SOCKET: nudgeSocket } : {}),
    // The channels come from the registry, never from one index named in the environment.
    CLAIMBOARD_DB: '',
  });
  console.log(`claimboard: serving the channels in ${registryFile} at http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${opts.port}`);
  return await untilStopped(web, async () => {
    stopNudges?.();
    await hub.stop();
  });
}
