/**
 * Reads V8 `.cpuprofile`s (node --cpu-prof writes one per thread) and lists the functions with
 * the most self time, merged over the files given.
 * `node --import tsx bench/profile.ts <file.cpuprofile>... [--top N]`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Self time (µs) per function ("name  file:line") of one profile; `(idle)` included. */
function selfTimes(file: string): Map<string, number> {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const selfUs = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    const node = byId.get(id);
    if (!node) return;
    const cf = node.callFrame;
    const where = cf.url ? `${cf.url.replace(/^file:\/\//, '').split('/node_modules/').pop()?.replace(/^.*\/(lib|bin|app|bench)\//, '$1/')}:${cf.lineNumber + 1}` : '';
    const key = `${cf.functionName || '(anonymous)'}  ${where}`;
    selfUs.set(key, (selfUs.get(key) ?? 0) + dt);
  });
  return selfUs;
}

const isIdle = (k: string) => k.startsWith('(idle)');

/**
 * The top `n` functions by self time over one or more profiles (e.g. every thread of a
 * process, merged), one per line: ms, share of busy time, name, file:line; then busy and idle
 * totals, per profile when there are several.
 */
export function topSelfTime(files: string | readonly string[], n = 15): string {
  const list = typeof files === 'string' ? [files] : files;
  const merged = new Map<string, number>();
  const perFile: string[] = [];
  let busy = 0;
  let idle = 0;
  for (const f of list) {
    let b = 0;
    let i = 0;
    for (const [k, us] of selfTimes(f)) {
      merged.set(k, (merged.get(k) ?? 0) + us);
      if (isIdle(k)) i += us;
      else b += us;
    }
    busy += b;
    idle += i;
    perFile.push(`${path.basename(f)}: ${(b / 1000).toFixed(0)} ms busy`);
  }
  // Idle time is a thread waiting (for events, the disk, a child): listed apart, not in the shares.
  const top = [...merged.entries()].filter(([k]) => !isIdle(k)).sort((a, b) => b[1] - a[1]).slice(0, n);
  return (
    top.map(([k, us]) => `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / busy).toFixed(1).padStart(5)} %  ${k}`).join('\n') +
    `\n${(busy / 1000).toFixed(0).padStart(7)} ms busy (shares above are of this), ${(idle / 1000).toFixed(0)} ms idle` +
    (list.length > 1 ? `\n  per thread: ${perFile.join('; ')}` : '')
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  const k = args.indexOf('--top');
  const top = k >= 0 ? Number(args[k + 1]) : 25;
  const files = args.filter((a, i) => a !== '--top' && (k < 0 || i !== k + 1));
  if (files.length === 0) {
    console.error('usage: bench/profile.ts <file.cpuprofile>... [--top N]');
    process.exit(2);
  }
  console.log(topSelfTime(files, top));
}
