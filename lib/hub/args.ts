/**
 * The channels a hub's `serve` is given on its command line: `path` or `name=path` arguments
 * (each one channel) and parent folders (whose child folders are channels, lib/hub/folders.ts),
 * read into specs, or refused with every reason at once. Reads no folder: whether each is a
 * channel is the channel set's question (lib/hub/channel-set.ts), asked again on every rescan.
 */
import path from 'node:path';
import { canonicalName, CHANNEL_NAME_RULE, isChannelName } from '../ledger/names';

export { CHANNEL_NAME_RULE, isChannelName };

/** Seconds between two looks at a hub's folders when none is given (`serve --rescan`). */
export const DEFAULT_RESCAN_S = 10;

/** One channel named on the command line: its name (canonical: lowercase) and its folder (absolute). */
export interface ChannelSpec {
  readonly name: string;
  readonly root: string;
}

/** The arguments read: the channels in the order given, and the parent folders (absolute) in the order given. */
export type ParsedChannelArgs =
  | { readonly ok: true; readonly specs: readonly ChannelSpec[]; readonly parents: readonly string[] }
  | { readonly ok: false; readonly reasons: readonly string[] };

/**
 * Splits one channel argument: `name=path` when the text before the first `=` is not empty and
 * holds no `/` (a name never does), else the whole argument is a path (so a folder whose name has
 * a `=` in it is given as `./a=b`). A plain path's channel is named after its folder.
 */
function splitArg(arg: string): { readonly name: string | null; readonly where: string } {
  const eq = arg.indexOf('=');
  if (eq > 0 && !arg.slice(0, eq).includes('/')) return { name: arg.slice(0, eq), where: arg.slice(eq + 1) };
  return { name: null, where: arg };
}

/**
 * Reads `serve`'s channel arguments and parent folders, relative paths against `cwd`. Refuses,
 * each with its reason: an empty path; a name (given, or the folder's name) that is not a
 * channel name; two channels of one name (case-insensitive, as names compare); one folder given
 * twice, as channels or as parents, or both as a channel and as a parent. Folders are compared by
 * their resolved paths here; the channel set also compares the folders themselves (a symlink to
 * one already served is the same folder).
 */
export function parseChannelArgs(channelArgs: readonly string[], parentArgs: readonly string[], cwd: string): ParsedChannelArgs {
  const reasons: string[] = [];
  const specs: ChannelSpec[] = [];
  const byName = new Map<string, string>();
  const byFolder = new Map<string, string>();

  for (const arg of channelArgs) {
    const { name, where } = splitArg(arg);
    if (where === '') {
      reasons.push(`"${arg}": no folder given`);
      continue;
    }
    const root = path.resolve(cwd, where);
    const raw = name ?? path.basename(root);
    if (!isChannelName(raw)) {
      reasons.push(
        name === null
          ? `"${arg}": the folder's name "${raw}" is not a channel name (${CHANNEL_NAME_RULE}); give one as name=${where}`
          : `"${arg}": "${raw}" is not a channel name (${CHANNEL_NAME_RULE})`,
      );
      continue;
    }
    const canonical = canonicalName(raw);
    const nameTaken = byName.get(canonical);
    if (nameTaken !== undefined) {
      reasons.push(`"${arg}": the name "${canonical}" is already given to "${nameTaken}"; give one of them another as name=path`);
      continue;
    }
    const folderTaken = byFolder.get(root);
    if (folderTaken !== undefined) {
      reasons.push(`"${arg}": the folder ${root} is already given as "${folderTaken}"`);
      continue;
    }
    byName.set(canonical, arg);
    byFolder.set(root, arg);
    specs.push({ name: canonical, root });
  }

  const parents: string[] = [];
  for (const arg of parentArgs) {
    if (arg === '') {
      reasons.push('a parent folder argument is empty');
      continue;
    }
    const root = path.resolve(cwd, arg);
    const taken = byFolder.get(root);
    if (taken !== undefined) {
      reasons.push(`parent "${arg}": the folder ${root} is already given as "${taken}"`);
      continue;
    }
    byFolder.set(root, `parent ${arg}`);
    parents.push(root);
  }

  return reasons.length > 0 ? { ok: false, reasons } : { ok: true, specs, parents };
}

/**
 * The configured operators (CLAIMBOARD_OPERATORS entries) of channel `name`: the entries
 * `name:operator` name operators of that channel only; a plain `operator` entry counts when one
 * channel is served (`several` false), never in a serve of several, where it would make the
 * name an operator of every channel. Names are compared canonically.
 */
export function operatorsOf(entries: readonly string[], name: string, several: boolean): string[] {
  const out: string[] = [];
  for (const e of entries) {
    const colon = e.indexOf(':');
    if (colon === -1) {
      if (!several) out.push(e);
    } else if (canonicalName(e.slice(0, colon)) === canonicalName(name)) out.push(e.slice(colon + 1));
  }
  return out;
}
