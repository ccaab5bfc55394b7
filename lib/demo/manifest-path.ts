import path from 'node:path';

/**
 * `<parent of dir>/<basename>.fleet.json`: the demo manifest, beside (never inside) the demo
 * channel at `dir`. A folder with one is the demo channel. Its own module: `claimboard state`
 * asks it without loading the demo.
 */
export function demoManifestPath(dir: string): string {
  const abs = path.resolve(dir);
  return path.join(path.dirname(abs), `${path.basename(abs)}.fleet.json`);
}
