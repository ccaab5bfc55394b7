import 'server-only';
/**
 * The demo manifest, `<parent>/<name>.fleet.json` beside (never inside) the demo channel: which
 * runs of the story the simulated fleet adopts, which it never touches (they are meant to go
 * stale), and which workers are down until when. Read and written by the story (scenario.ts), the
 * fleet (fleet.ts) and the reaper's story (reaper-story.ts).
 */
import fs from 'node:fs';
import { demoManifestPath } from './manifest-path';
import { writeFileAtomic } from './record-file';

/** What the fleet does with a run it keeps alive: finish it, let it die, give up, or keep it going until stopped. */
export type RunFate = 'finish' | 'die' | 'giveup' | 'linger';

/** A run the fleet adopts when it starts (if the order still needs it). */
export interface DemoRun {
  readonly order_id: string;
  readonly agent: string;
  readonly run: string;
  readonly pid: number;
  readonly fate: RunFate;
}

/**
 * The demo manifest (`<parent>/<name>.fleet.json`), outside the channel. `abandoned` holds
 * `<order_id>/<agent>` keys of runs the fleet must never touch (they are meant to go stale);
 * the fleet adds the runs it lets die.
 */
export interface DemoManifest {
  readonly version: 1;
  readonly operator: string;
  readonly workers: readonly string[];
  readonly silent: readonly string[];
  readonly retired: readonly string[];
  readonly clock_offsets_ms: Readonly<Record<string, number>>;
  readonly runs: readonly DemoRun[];
  readonly abandoned: readonly string[];
  /**
   * Workers the fleet let die (fleet.ts), with the local time (ms) of their next start; absent or
   * empty: every worker is up.
   */
  readonly down?: Readonly<Record<string, number>>;
}

/** Reads the demo manifest of the channel at `dir`. Throws when it is missing or not a manifest. */
export function readDemoManifest(dir: string): DemoManifest {
  const file = demoManifestPath(dir);
  const m = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<DemoManifest>;
  if (m.version !== 1 || typeof m.operator !== 'string' || !Array.isArray(m.workers) || !Array.isArray(m.runs)) {
    throw new Error(`${file} is not a claimboard demo manifest`);
  }
  return {
    version: 1,
    operator: m.operator,
    workers: m.workers,
    silent: m.silent ?? [],
    retired: m.retired ?? [],
    clock_offsets_ms: m.clock_offsets_ms ?? {},
    runs: m.runs,
    abandoned: m.abandoned ?? [],
    down: m.down ?? {},
  };
}

/** Writes the manifest atomically (outside the channel). */
export function writeDemoManifest(dir: string, manifest: DemoManifest): void {
  writeFileAtomic(demoManifestPath(dir), new TextEncoder().encode(JSON.stringify(manifest, null, 2) + '\n'), 'replace');
}
