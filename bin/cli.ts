/**
 * `claimboard <command>`: the command-line contract of DESIGN.md ("CLI").
 * Exit codes: 0 done; 1 the folder could not be read or an action was refused; 2 bad usage.
 */
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { channelStateOf, operatorsFromEnv } from '../lib/index/channel-state';
import { ChannelUnreadableError } from '../lib/index/read-channel';
import { parseTimestamp } from '../lib/ledger/time';
import { stateJson, stateTable } from './format';

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

/** Runs the CLI with `argv` (without node and script). Resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let code = 0;
  const program = new Command('claimboard')
    .description('Operator console for fleets that coordinate through a synced ferryman channel folder.')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });

  program
    .command('state')
    .description('derive every order of a channel folder (file ctimes are arrivals) and print the board')
    .argument('<channel>', 'the channel root (the folder Syncthing carries)')
    .option('--json', 'print one JSON object {orders, problems, ledger}')
    .option('--now <rfc3339>', 'evaluate at this time on this machine\'s clock (default: now)', parseNow)
    .option('--stale-after <seconds>', 'heartbeat interval x multiple; decimals allowed (default 300)', parseSeconds)
    .action((channel: string, opts: { json?: boolean; now?: number; staleAfter?: number }) => {
      try {
        const state = channelStateOf(channel, {
          nowMs: opts.now,
          staleAfterMs: opts.staleAfter !== undefined ? opts.staleAfter * 1000 : undefined,
          operators: operatorsFromEnv(),
        });
        process.stdout.write(opts.json ? JSON.stringify(stateJson(state)) + '\n' : stateTable(state, opts.now ?? Date.now()));
      } catch (e) {
        if (e instanceof ChannelUnreadableError) {
          process.stderr.write(`claimboard: ${e.message}\n`);
          code = 1;
          return;
        }
        throw e;
      }
    });

  program
    .command('serve')
    .description('serve the dashboard on a channel (default: CLAIMBOARD_CHANNEL, else a live demo in ./.claimboard/demo)')
    .argument('[channel]', 'the channel root')
    .option('--port <n>', 'port', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 65535) throw new InvalidArgumentError('a port number');
      return n;
    }, Number(process.env.PORT ?? 3000))
    .option('--host <h>', 'address to bind (default 127.0.0.1)', '127.0.0.1')
    .option('--stale-after <seconds>', 'heartbeat interval x multiple; decimals allowed (default 300; 30 for the demo)', parseSeconds)
    .option('--db <file>', 'index database file (default ./.claimboard/index/<hash>.sqlite)')
    .action(async (channel: string | undefined, opts: { port: number; host: string; staleAfter?: number; db?: string }) => {
      const { serve } = await import('./serve');
      code = await serve({ channel, port: opts.port, host: opts.host, staleAfterS: opts.staleAfter, db: opts.db });
    });

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
