/**
 * The soak's fleet in a process of its own (so its synchronous, fsynced writes never delay the
 * clients' clocks in the soak process): `node --conditions=react-server --import tsx
 * test/support/soak/fleet-main.ts --root DIR [--workers N] [--stale-after-ms MS] [--max-orders N]
 * [--seed N] [--history N] [--hang-first P] [--hang-rerun P]` (fleet.ts SoakFleetOptions).
 *
 * Protocol, one line each. Standard output: `W <SoakWrite JSON>` per file written or removed,
 * `READY {"orders":N}` once the roster and history are written, `BURST {"files":N,"ms":M}` when a
 * burst is in place, `STOPPED {counts}`, `ERROR <message>`. Standard input: `start`, `stop`,
 * `burst <dir>` (every file under `<dir>/tasks` written into the channel at once, each through a
 * dot temp file and a rename as Syncthing does), `exit`. It exits when its input closes.
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { SoakFleet, type SoakWrite } from './fleet';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i] ?? '', process.argv[i + 1] ?? '');
const root = args.get('--root');
if (!root) {
  process.stdout.write('ERROR --root is required\n');
  process.exit(2);
}
const num = (k: string, d: number) => (args.has(k) ? Number(args.get(k)) : d);

const out = (line: string) => process.stdout.write(line + '\n');
const fleet = new SoakFleet(root, {
  workers: num('--workers', 24),
  staleAfterMs: num('--stale-after-ms', 20_000),
  maxOrders: num('--max-orders', 600),
  seed: num('--seed', 15),
  hangs: { first: num('--hang-first', 0.04), rerun: num('--hang-rerun', 0.3) },
  onWrite: (w: SoakWrite) => out(`W ${JSON.stringify(w)}`),
  onError: (e) => out(`ERROR ${e instanceof Error ? e.message : String(e)}`),
});

/** Writes every file under `<dir>/tasks` into the channel's `tasks/`, as fast as it can; returns how many. */
function burst(dir: string): number {
  let files = 0;
  const src = path.join(dir, 'tasks');
  for (const order of fs.readdirSync(src)) {
    const from = path.join(src, order);
    const to = path.join(root as string, 'tasks', order);
    fs.mkdirSync(to, { recursive: true });
    for (const name of fs.readdirSync(from)) {
      const tmp = path.join(to, `.syncthing.${name}.tmp`);
      fs.copyFileSync(path.join(from, name), tmp);
      fs.renameSync(tmp, path.join(to, name));
      files++;
    }
  }
  return files;
}

fleet.setup(num('--history', 60));
out(`READY ${JSON.stringify({ orders: fleet.orderCount })}`);

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const [cmd, ...rest] = line.trim().split(' ');
  try {
    switch (cmd ?? '') {
      case 'start':
        fleet.start();
        break;
      case 'stop':
        fleet.stop();
        out(`STOPPED ${JSON.stringify({ counts: fleet.counts, orders: fleet.orderCount })}`);
        break;
      case 'burst': {
        const t = performance.now();
        const files = burst(rest.join(' '));
        out(`BURST ${JSON.stringify({ files, ms: performance.now() - t })}`);
        break;
      }
      case 'exit':
        fleet.stop();
        process.exit(0);
        break;
      default:
        out(`ERROR unknown command ${cmd ?? ''}`);
    }
  } catch (e) {
    out(`ERROR ${e instanceof Error ? e.message : String(e)}`);
  }
});
rl.on('close', () => {
  fleet.stop();
  process.exit(0);
});
