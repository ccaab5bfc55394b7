import 'server-only';
/**
 * The web process tells the indexer which paths an operator action just wrote, so the card
 * moves at once even where no folder event comes (the folder of a finished order is not
 * watched; the looks would find the write within seconds). A hint only: the indexer re-reads
 * what it is told from disk, and nothing depends on a nudge arriving. One line per path over
 * a Unix socket named by CLAIMBOARD_NUDGE_SOCKET (set by `claimboard serve` for its web server);
 * in a serve of several channels each line names its channel first: `<channel>\t<path>`.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { settings } from '../config';
import { canonicalName, isChannelName } from '../ledger/names';

/** A channel-relative path worth a look: 1 to 3 `/`-separated names, none empty or starting with '.'. */
export function isNudgePath(rel: string): boolean {
  if (rel.length === 0 || rel.length > 1024) return false;
  const parts = rel.split('/');
  return parts.length <= 3 && parts.every((p) => p.length > 0 && !p.startsWith('.') && !p.includes('\0'));
}

/** Where this process listens: a short path in the temporary folder, unique to the process. */
export function nudgeSocketPath(): string {
  return path.join(os.tmpdir(), `claimboard-${process.pid}.sock`);
}

/** A nudge line read: its path, and the channel it names (canonical), or null when it names none; null when it is not a nudge. */
export function parseNudgeLine(line: string): { readonly rel: string; readonly channel: string | null } | null {
  const tab = line.indexOf('\t');
  if (tab === -1) return isNudgePath(line) ? { rel: line, channel: null } : null;
  const name = line.slice(0, tab);
  const rel = line.slice(tab + 1);
  return isChannelName(name) && isNudgePath(rel) ? { rel, channel: canonicalName(name) } : null;
}

/**
 * Listens on `file` (a Unix socket, replaced if left over) and calls `onPath` with each line
 * that is a nudge (parseNudgeLine: a valid channel-relative path, named by its channel or not);
 * other lines are dropped. Resolves to a function that stops listening and removes the socket.
 * Rejects when the socket cannot be made.
 */
export async function listenForNudges(file: string, onPath: (rel: string, channel: string | null) => void): Promise<() => void> {
  fs.rmSync(file, { force: true });
  const server = net.createServer((conn) => {
    let buf = '';
    conn.setEncoding('utf8');
    conn.on('data', (chunk: string) => {
      buf += chunk;
      if (buf.length > 1 << 20) return void conn.destroy(); // not ours
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const n = parseNudgeLine(line);
        if (n) onPath(n.rel, n.channel);
      }
    });
    conn.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => resolve());
  });
  server.unref();
  return () => {
    server.close();
    fs.rmSync(file, { force: true });
  };
}

/**
 * Tells the indexer (when CLAIMBOARD_NUDGE_SOCKET names one) that `paths` were written, in
 * `channel` when a serve of several channels listens (each line then names it).
 * Never throws and never waits: a nudge that cannot be delivered is dropped.
 */
export function nudgeIndexer(paths: readonly string[], socket = settings.nudgeSocket(), channel?: string): void {
  if (!socket || paths.length === 0) return;
  try {
    const conn = net.createConnection(socket);
    conn.on('error', () => {});
    conn.end(paths.filter(isNudgePath).map((p) => `${channel ? `${channel}\t` : ''}${p}\n`).join(''));
  } catch {
    /* no indexer listening: the looks find the write */
  }
}
