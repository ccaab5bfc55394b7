/**
 * The channels the real ferry wrote (conformance/ferry, its README.md) and ferry's own verdict
 * on each, for tests: `tasks.txt` is `ferry channel tasks` as printed, `truth.json` a person's
 * reading of which orders need a human, `args.txt` the CLI arguments the case is read with.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { OrderState } from '../../lib/ledger/derive';
import { FERRY_STATES } from '../../lib/ledger/ferry-states';

/** The repository's ferry cases. */
export const FERRY_DIR = path.resolve(__dirname, '../../conformance/ferry');

/** ferry's verdict on one order: `TaskState` as ferry prints it, holder lowercased (claimboard's canonical form). */
export interface FerryVerdict {
  readonly state: string;
  readonly holder: string | null;
}

/** A person's reading of one order (truth.json). */
export interface Truth {
  readonly operator_view: 'fine' | 'needs_human' | 'stale';
  readonly or_stale?: boolean;
  readonly why?: string;
}

export interface FerryCase {
  readonly name: string;
  readonly dir: string;
  readonly channel: string;
  readonly verdict: ReadonlyMap<string, FerryVerdict>;
  readonly truth: ReadonlyMap<string, Truth> | null;
  /** Extra CLI arguments, `@x` resolved to the case's own x. */
  readonly args: readonly string[];
}

/**
 * Parses `ferry channel tasks` output: one line per order, `  <id>  <holder or ->  <State> [{...}]`,
 * followed by indented detail lines (which start with more spaces and no id).
 */
export function parseFerryTasks(text: string): Map<string, FerryVerdict> {
  const out = new Map<string, FerryVerdict>();
  for (const line of text.split('\n')) {
    const m = /^ {2}(\S+)\s+(\S+)\s+(\w+)/.exec(line);
    if (m && m[1] && m[2] && m[3]) out.set(m[1], { holder: m[2] === '-' ? null : m[2].toLowerCase(), state: m[3] });
  }
  return out;
}

/** claimboard states each ferry state may read as (lib/ledger/ferry-states.json): Stale is decided by arrival here, blocked is ferry's Open. */
export const FERRY_TO_CLAIMBOARD: Readonly<Record<string, readonly OrderState[]>> = Object.fromEntries(
  Object.entries(FERRY_STATES).map(([word, row]) => [word, row.claimboard]),
);

/** Every case of conformance/ferry (or `root`), sorted by name. */
export function ferryCases(root: string = FERRY_DIR): FerryCase[] {
  return fs
    .readdirSync(root)
    .filter((n) => fs.existsSync(path.join(root, n, 'tasks.txt')))
    .sort()
    .map((name) => {
      const dir = path.join(root, name);
      const truthFile = path.join(dir, 'truth.json');
      const argsFile = path.join(dir, 'args.txt');
      const truth = fs.existsSync(truthFile)
        ? new Map(Object.entries(JSON.parse(fs.readFileSync(truthFile, 'utf8')) as Record<string, Truth>).filter(([k]) => !k.startsWith('_')))
        : null;
      const args = fs.existsSync(argsFile)
        ? fs.readFileSync(argsFile, 'utf8').trim().split(/\s+/).filter(Boolean).map((a) => (a.startsWith('@') ? path.join(dir, a.slice(1)) : a))
        : [];
      return { name, dir, channel: path.join(dir, 'channel'), verdict: parseFerryTasks(fs.readFileSync(path.join(dir, 'tasks.txt'), 'utf8')), truth, args };
    });
}

/** The value of `--flag <v>` in a case's args, or undefined. */
export function argValue(args: readonly string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}
