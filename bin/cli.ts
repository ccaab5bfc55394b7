/**
 * `claimboard <command>`: the command-line contract of the design ("CLI").
 * Exit codes: 0 done; 1 the folder could not be read or an action was refused; 2 bad usage.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { channelStateOf } from '../lib/index/channel-state';
import { demoManifestPath } from '../lib/demo/manifest-path';
import { staleAfterMsFor } from './stale-after-for';
import { defaultStateDir, readHolds } from '../lib/local/reaper-state';
import { withReaperHolds } from '../lib/reaper/state-holds';
import { settings } from '../lib/config';
import { readFerryPins, readFleetRoster } from '../lib/index/ferryman-state';

/** The trust ferry on this machine adds (`--ferryman-state`, default $FERRYMAN_STATE_DIR; `--ferryman-pins`). */
function ferrymanTrust(stateDir: string | undefined, pinsDir: string | undefined) {
  const dir = stateDir ?? process.env.FERRYMAN_STATE_DIR;
  return {
    ...(dir ? { fleetAgents: readFleetRoster(dir) } : {}),
    ...(pinsDir ? { pins: readFerryPins(pinsDir) } : {}),
  };
}
import { ChannelUnreadableError, unlistedFolders } from '../lib/index/disk/read-channel';
import { parseTimestamp } from '../lib/ledger/time';
import { isSafeComponent } from '../lib/ledger/names';
import { stateJson, stateTable } from './format';
import { addReapCommand } from './reap';
import { addHoldsCommand } from './holds';
import { DEFAULT_RESCAN_S } from '../lib/hub/args';
import { addServeLocalOptions, serveLocalOf, type ServeLocal, type ServeLocalFlags } from './serve-local-options';

function parseNow(v: string): number {
  const t = parseTimestamp(v);
  if (!t.ok) throw new InvalidArgumentError(`not an RFC 3339 time (${t.reason})`);
  return t.value.epochMs + (t.value.nanos % 1_000_000) / 1_000_000;
}
function parseSeconds(v: string): number {
  if (!/^\d+(\.\d+)?$/.test(v.trim())) throw new InvalidArgumentError('a number of seconds, e.g. 300 or 2.5');
  const s = Number(v);
  if (!(s > 0)) throw new InvalidArgumentError('must be more than 0');
  return s;
}

/** Seconds, 0 allowed (`--alert-after`). */
function parseSecondsOrZero(v: string): number {
  if (!/^\d+(\.\d+)?$/.test(v.trim())) throw new InvalidArgumentError('a number of seconds, e.g. 0, 60 or 2.5');
  return Number(v);
}
/** An http(s) URL (`--alert-webhook`, `--alert-base-url`). */
function parseHttpUrl(v: string): URL {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new InvalidArgumentError('not a URL (http://... or https://...)');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new InvalidArgumentError(`an http or https URL, not ${u.protocol}`);
  return u;
}

/** The version in the package.json of the installed package or checkout (bin/ and dist/ both sit one level below it). */
function packageVersion(): string {
  const dir = settings.projectDir() ?? path.resolve(import.meta.dirname, '..');
  try {
    const v: unknown = (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version?: unknown }).version;
    return typeof v === 'string' ? v : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** `serve`'s default port: $PORT when it is a port number (an empty or unset PORT is not port 0), else 3000. */
function defaultPort(): number {
  const n = Number(process.env.PORT?.trim() || NaN);
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : 3000;
}

/** Runs the CLI with `argv` (without node and script). Resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let code = 0;
  const program = new Command('claimboard')
    .description('Operator console for fleets that coordinate through a synced ferryman channel folder.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });

  program
    .command('state')
    .description('derive every order of a channel folder (file ctimes are arrivals) and print the board')
    .argument('[channel...]', 'the channel root (the folder Syncthing carries); several (each `path` or `name=path`) print one block each')
    .option('--channels-in <parent>', 'a folder whose child folders are channels, as serve takes it; repeatable', (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option('--json', 'print one JSON object {orders, problems, ledger}; of several channels, {channels, orders, problems, ledger} with each row\'s channel')
    .option('--now <rfc3339>', 'evaluate at this time on this machine\'s clock (default: now)', parseNow)
    .option('--stale-after <seconds>', 'heartbeat interval x multiple; decimals allowed (default 300; 30 for the demo)', parseSeconds)
    .option('--ferryman-state <dir>', "also trust this machine's ferry fleet roster (<dir>/fleet/agents; default $FERRYMAN_STATE_DIR)")
    .option('--ferryman-pins <dir>', "keys ferry pinned on this machine (<workspace>/.ferryman/agents-pinned): they override the folder's")
    .option('--reap-state <dir>', "the reaper's state folder whose holds count, as serve's board counts them (default: the demo's beside it, else serve's default)")
    .action(async (channels: string[], opts: { channelsIn: string[]; json?: boolean; now?: number; staleAfter?: number; ferrymanState?: string; ferrymanPins?: string; reapState?: string }) => {
      // One plain channel prints as it always has; several, or a parent, print one block each.
      const channel = channels.length === 1 && opts.channelsIn.length === 0 ? channels[0] : undefined;
      if (channel === undefined) {
        if (channels.length === 0 && opts.channelsIn.length === 0) {
          process.stderr.write("claimboard: state needs a channel folder (or several, or --channels-in <parent>)\n");
          code = 2;
          return;
        }
        const { stateOfChannels } = await import('./state-hub');
        const run = stateOfChannels({ channels, parents: opts.channelsIn, json: opts.json === true, nowMs: opts.now, staleAfterS: opts.staleAfter, ferrymanState: opts.ferrymanState, ferrymanPins: opts.ferrymanPins, reapState: opts.reapState }, process.cwd());
        for (const line of run.stderr) process.stderr.write(`claimboard: ${line}\n`);
        process.stdout.write(run.stdout);
        code = run.code;
        return;
      }
      try {
        // The same answer as `serve` on this folder: the demo's threshold on the demo channel
        // (its manifest beside it) and this machine's reaper holds.
        const abs = path.resolve(channel);
        const demo = fs.existsSync(demoManifestPath(abs));
        const staleAfterMs = staleAfterMsFor(abs, opts.staleAfter);
        const stateDir = path.resolve(opts.reapState ?? (demo ? path.join(path.dirname(abs), 'reaper') : (settings.reaperState() ?? defaultStateDir())));
        const holds = readHolds(stateDir, abs);
        const state = withReaperHolds(
          channelStateOf(channel, {
            nowMs: opts.now,
            staleAfterMs,
            operators: settings.operators(),
            ...ferrymanTrust(opts.ferrymanState, opts.ferrymanPins),
          }),
          holds,
        );
        const held = state.orders.filter((c) => c.flags.includes('dead_run_held')).length;
        if (!opts.json) {
          const which = opts.staleAfter !== undefined ? '' : demo ? " (the demo's, as serve serves it)" : ' (the default; serve uses its own --stale-after)';
          process.stderr.write(`claimboard: stale after ${staleAfterMs / 1000} s${which}; ${held} dead ${held === 1 ? 'run' : 'runs'} held for review by this machine's reaper (${stateDir})\n`);
        }
        process.stdout.write(opts.json ? JSON.stringify(stateJson(state)) + '\n' : stateTable(state, opts.now ?? Date.now()));
        const unlisted = unlistedFolders(state.problems);
        if (unlisted.length > 0) {
          process.stderr.write(`claimboard: ${unlisted.join(', ')} cannot be listed: the board is incomplete\n`);
          code = 1;
        }
      } catch (e) {
        if (e instanceof ChannelUnreadableError) {
          process.stderr.write(`claimboard: ${e.message}\n`);
          code = 1;
          return;
        }
        throw e;
      }
    });

  // The web process `serve` starts (bin/web.ts): not for people, so not in --help.
  program
    .command('web', { hidden: true })
    .requiredOption('--host <h>', 'address to bind')
    .requiredOption('--port <n>', 'port', (v) => Number(v))
    .option('--exit-with-stdin', 'stop when standard input closes (serve holds its other end)')
    .action(async (opts: { host: string; port: number; exitWithStdin?: boolean }) => {
      const { webServer } = await import('./web');
      process.exit(await webServer(opts));
    });

  const serveCommand = program
    .command('serve')
    .description('serve the dashboard on a channel (default: CLAIMBOARD_CHANNEL, else a live demo in ./.claimboard/demo), or on several (a hub: one board for all of them)')
    .argument('[channel...]', 'the channel root; several (each `path` or `name=path`) make a hub')
    .option('--channels-in <parent>', "a hub's folder whose child folders are channels, looked at again every --rescan; repeatable", (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option('--rescan <seconds>', `a hub's seconds between looks for channels added or gone (default ${DEFAULT_RESCAN_S})`, parseSeconds)
    .option('--port <n>', 'port', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 65535) throw new InvalidArgumentError('a port number');
      return n;
    }, defaultPort())
    .option('--host <h>', 'address to bind (default 127.0.0.1)', '127.0.0.1')
    .option('--stale-after <seconds>', 'heartbeat interval x multiple; decimals allowed (default 300; 30 for the demo)', parseSeconds)
    .option('--db <file>', 'index database file (default ./.claimboard/index/<hash>.sqlite)')
    .option('--ferryman-state <dir>', "also trust this machine's ferry fleet roster (<dir>/fleet/agents; default $FERRYMAN_STATE_DIR)")
    .option('--ferryman-pins <dir>', "keys ferry pinned on this machine (<workspace>/.ferryman/agents-pinned): they override the folder's")
    .option('--alert-webhook <url>', 'POST each alert (JSON with a Slack/Mattermost `text`) to this URL; repeatable (docs/alerts.md)', (v: string, prev: URL[]) => [...prev, parseHttpUrl(v)], [] as URL[])
    .option('--alert-command <cmd>', 'run this shell command for each alert, the JSON on its standard input')
    .option('--alert-after <seconds>', 'quiet period: how long an item must stay before it pages, and be gone before it is resolved (default 0)', parseSecondsOrZero)
    .option('--alert-base-url <url>', "the board's address in alert links (default http://<host>:<port>)", parseHttpUrl)
    .option('--public-url <url>', 'an address readers reach the board at besides --host (a reverse proxy\'s); requests naming any other host are refused; repeatable', (v: string, prev: URL[]) => [...prev, parseHttpUrl(v)], [] as URL[])
    .option('--max-watches <n>', 'order folders watched for changes at most, the most recently changed (default 65536; the rest are found by the periodic looks; docs/deploy.md)', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('a whole number, 0 or more');
      return n;
    });
  // This machine's agents and the opt-in reaper: bin/serve-local.ts.
  addServeLocalOptions(serveCommand).action(
      async (
        channels: string[],
        opts: { port: number; host: string; staleAfter?: number; db?: string; ferrymanState?: string; ferrymanPins?: string; alertWebhook: URL[]; alertCommand?: string; alertAfter?: number; alertBaseUrl?: URL; publicUrl: URL[]; maxWatches?: number; channelsIn: string[]; rescan?: number } & ServeLocalFlags,
      ) => {
        let local: ServeLocal;
        try {
          local = serveLocalOf(opts);
        } catch (e) {
          process.stderr.write(`claimboard: ${e instanceof Error ? e.message : String(e)}\n`);
          code = 2;
          return;
        }
        if (channels.length > 1 || opts.channelsIn.length > 0) {
          const { hubRefusals, serveHub } = await import('./serve-hub');
          const refused = hubRefusals({
            db: opts.db,
            ferrymanState: opts.ferrymanState,
            ferrymanPins: opts.ferrymanPins,
            local: local.localAgents.length > 0 || local.ferrymanWorkspaces.length > 0 || local.reaps.length > 0 || local.reapState !== undefined,
          });
          if (refused.length > 0) {
            for (const r of refused) process.stderr.write(`claimboard: ${r}\n`);
            code = 2;
            return;
          }
          code = await serveHub({
            channels,
            parents: opts.channelsIn,
            port: opts.port,
            host: opts.host,
            staleAfterS: opts.staleAfter,
            rescanS: opts.rescan ?? DEFAULT_RESCAN_S,
            publicUrls: opts.publicUrl.map((u) => u.href),
            maxWatches: opts.maxWatches,
            alertWebhooks: opts.alertWebhook,
            alertCommand: opts.alertCommand,
            alertAfterS: opts.alertAfter,
            alertBaseUrl: opts.alertBaseUrl?.href.replace(/\/+$/, ''),
          });
          return;
        }
        if (opts.rescan !== undefined) process.stderr.write('claimboard: --rescan does nothing with one channel (it is for --channels-in and several channels)\n');
        const channel = channels[0];
        const { serve } = await import('./serve');
        code = await serve({
          channel,
          port: opts.port,
          host: opts.host,
          staleAfterS: opts.staleAfter,
          db: opts.db,
          ferrymanState: opts.ferrymanState ?? process.env.FERRYMAN_STATE_DIR,
          ferrymanPins: opts.ferrymanPins,
          alertWebhooks: opts.alertWebhook,
          alertCommand: opts.alertCommand,
          alertAfterS: opts.alertAfter,
          alertBaseUrl: opts.alertBaseUrl?.href.replace(/\/+$/, ''),
          publicUrls: opts.publicUrl.map((u) => u.href),
          maxWatches: opts.maxWatches,
          local,
        });
      },
    );

  program
    .command('demo')
    .description('write the embedded demo channel (once) and print its path; the operator key path goes to stderr')
    .argument('[dir]', 'where to write it; keys go to <dir>/../keys', './.claimboard/demo')
    .action(async (dir: string) => {
      const { ensureDemoChannel } = await import('../lib/demo/scenario');
      try {
        const demo = ensureDemoChannel(dir);
        if (!demo.created) process.stderr.write(`claimboard: ${demo.dir} already exists and is a channel; left as it is\n`);
        process.stdout.write(demo.dir + '\n');
        process.stderr.write(
          demo.operatorKeyPath
            ? `claimboard: operator key (${demo.operator}): ${demo.operatorKeyPath}\n`
            : `claimboard: no operator key at ${demo.keysDir}/${demo.operator}.key\n`,
        );
      } catch (e) {
        process.stderr.write(`claimboard: ${e instanceof Error ? e.message : String(e)}\n`);
        code = 1;
      }
    });

  program
    .command('keygen')
    .description('generate an Ed25519 identity: writes <name>.key (hex seed, 0600) and prints the roster entry to publish')
    .argument('<name>', 'the identity name (ASCII letters, digits, ".", "-", "_")', (v: string) => {
      if (!isSafeComponent(v)) throw new InvalidArgumentError('not a safe name: only ASCII letters, digits, ".", "-", "_", not "." or ".."');
      return v;
    })
    .option('--out <file>', 'where to write the seed (default ./<name>.key); never overwritten')
    .action(async (name: string, opts: { out?: string }) => {
      const { generateSeed, writeKeyFile, publicKeyOf } = await import('../lib/demo/identity');
      const { ChannelWriteError } = await import('../lib/demo/write-error');
      const file = path.resolve(opts.out ?? `${name}.key`);
      const seedHex = generateSeed();
      try {
        writeKeyFile(file, seedHex);
      } catch (e) {
        process.stderr.write(
          `claimboard: ${e instanceof ChannelWriteError && e.code === 'exists' ? `${file} already exists; refusing to overwrite a key` : e instanceof Error ? e.message : String(e)}\n`,
        );
        code = 1;
        return;
      }
      const entry = { name, role: 'operator', capabilities: [], public_key: publicKeyOf({ seedHex }) };
      process.stdout.write(JSON.stringify(entry, null, 2) + '\n');
      process.stderr.write(
        `claimboard: secret seed written to ${file} (mode 0600; keep it out of the synced folder). Publish the entry above as <channel>/agents/${name}.json.\n`,
      );
    });

  const action = (name: 'requeue' | 'retire' | 'reopen' | 'ack' | 'supersede', subject: string, description: string, textOption: '--reason <text>' | '--note <text>') =>
    program
      .command(name)
      .description(description)
      .argument('<channel>', 'the channel root')
      .argument(`<${subject}>`, subject === 'agent' ? 'the agent to retire' : 'the order id')
      .requiredOption('--key <seed-file>', "the operator's Ed25519 seed file (hex; ferryman's keys/<name>.key)")
      .option('--as <name>', 'the operator name (default: the key file name without .key)')
      .option(textOption, textOption.startsWith('--reason') ? 'why (recorded in the record and the ledger)' : 'a note')
      .option('--stale-after <seconds>', 'heartbeat interval x multiple; decimals allowed (default 300; 30 for the demo)', parseSeconds)
      .action(async (channel: string, id: string, opts: { key: string; as?: string; reason?: string; note?: string; staleAfter?: number; confirmAlive?: boolean; to?: string; id?: string }) => {
        const { runAction, ActionCliError } = await import('./actions');
        if (textOption.startsWith('--reason') && !opts.reason?.trim()) {
          process.stderr.write(`claimboard: ${name} needs --reason <text>\n`);
          code = 2;
          return;
        }
        try {
          const done = runAction(name, channel, id, opts);
          for (const p of done.written) process.stdout.write(p + '\n');
          process.stderr.write(`claimboard: what ferry does now: ${done.ferry}\n`);
        } catch (e) {
          if (!(e instanceof ActionCliError)) throw e;
          process.stderr.write(`claimboard: ${e.message.replace(/\s*\n\s*/g, ' ')}\n`);
          code = 1;
        }
      });
  action('requeue', 'order', "release a stale or given-up holder's claim so the order is offered again", '--reason <text>');
  action('retire', 'agent', 'retire an identity for good and release every order it holds with no result', '--reason <text>').option(
    '--confirm-alive',
    'retire even though one of its heartbeats is fresh (it looks alive)',
  );
  action('reopen', 'order', 'reopen a done, accepted or closed order', '--reason <text>');
  action('ack', 'order', 'acknowledge a give-up (the order is closed) or a late result (its alarm is lowered); board only: ferry does not read it', '--note <text>');
  action('supersede', 'order', 'issue a new signed order that does this order\'s work (ferry cannot move an addressed order or reopen a finished one)', '--reason <text>')
    .option('--to <agent>', 'address the new order to this agent (default: any worker)')
    .option('--id <new-id>', 'the new order id (default <order>-2, or the next free -N)');

  program
    .command('repin')
    .description("trust an agent's new key: pin the key its roster file carries now (after a key_changed problem)")
    .argument('<channel>', 'the channel root')
    .argument('<agent>', 'the agent whose key changed')
    .option('--key <hex>', 'the key you checked out of band; refused unless it is the one in the folder')
    .option('--db <file>', 'index database file (default: $CLAIMBOARD_DB, else the one `claimboard serve` uses for this channel)')
    .action(async (channel: string, agent: string, opts: { key?: string; db?: string }) => {
      const { repin } = await import('../lib/index/repin');
      const { openWriter } = await import('../lib/index/db');
      const { defaultDbFile } = await import('./serve');
      const db = openWriter(opts.db ?? settings.dbFile() ?? defaultDbFile(channel));
      try {
        const r = repin(db, channel, agent, opts.key);
        process.stdout.write(`pinned ${r.name}: ${r.from ? `${r.from.slice(0, 16)}… -> ` : ''}${r.to}\n`);
      } catch (e) {
        process.stderr.write(`claimboard: ${e instanceof Error ? e.message : String(e)}\n`);
        code = 1;
      } finally {
        db.close();
      }
    });

  // `claimboard holds`: bin/holds.ts.
  addHoldsCommand(program, (c) => (code = c), { now: parseNow, seconds: parseSeconds });

  // `claimboard reap`: bin/reap.ts.
  addReapCommand(program, (c) => (code = c), { operators: () => settings.operators(), staleAfterMs: () => settings.staleAfterMs() });

  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.exitCode === 0 ? 0 : 2;
    }
    process.stderr.write(`claimboard: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  return code;
}
