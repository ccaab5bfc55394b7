/**
 * Reads a V8 `.cpuprofile` (node --cpu-prof) and lists the functions with the most self time.
 * `node --import tsx bench/profile.ts <file.cpuprofile> [N]`.
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

/** The top `n` functions by self time, one per line: ms, share, name, file:line. */
export function topSelfTime(file: string, n = 15): string {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const selfUs = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    const node = byId.get(id);
    if (!node) return;
    const cf = node.callFrame;
    const where = cf.url ? `${cf.url.replace(/^file:\/\//, '').split('/node_modules/').pop()?.replace(/^.*\/(lib|bin|app|bench)\//, '$1/')}:${cf.lineNumber + 1}` : '';
    const key = `${cf.functionName || '(anonymous)'}  ${where}`;
    selfUs.set(key, (selfUs.get(key) ?? 0) + dt);
    total += dt;
  });
  const top = [...selfUs.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  return top.map(([k, us]) => `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`).join('\n') + `\n${(total / 1000).toFixed(0).padStart(7)} ms total sampled`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const f = process.argv[2];
  if (!f) {
    console.error('usage: bench/profile.ts <file.cpuprofile> [N]');
    process.exit(2);
  }
  console.log(topSelfTime(f, Number(process.argv[3] ?? 25)));
}
