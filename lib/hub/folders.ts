import 'server-only';
/**
 * Which folders are channels: one folder's verdict (`whyNotChannel`) and a parent's child
 * folders (`scanParent`). Reads the disk (lstat, stat, one listing), writes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { assertChannelRoot, ChannelUnreadableError, listCapped, unlistable } from '../index/disk/read-channel';
import { canonicalName } from '../ledger/names';
import { CHANNEL_NAME_RULE, isChannelName } from './args';

/**
 * Why a folder is not (or no longer) a channel: `gone` (no such folder), `not_folder` (a file
 * or something else there), `unreadable` (it cannot be looked at or listed), `not_channel` (a
 * readable folder without a channel's layout).
 */
export type NotChannelKind = 'gone' | 'not_folder' | 'unreadable' | 'not_channel';

export interface NotChannel {
  readonly kind: NotChannelKind;
  readonly reason: string;
}

const errCode = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? String(e);

/**
 * The channel rule: a folder is a channel when it is a directory this process can list that
 * holds a `tasks/` or an `agents/` folder (itself a folder, not a link): the layout of
 * docs/channel-format.md, as a single-channel `serve` checks it (lib/index/disk/read-channel.ts
 * `assertChannelRoot`, which this asks). Anything else is not a channel, and why: a missing
 * folder, a file, a folder that cannot be listed, a folder without that layout (another synced
 * folder, an empty one). `dir` itself may be a symlink to a folder (a channel named on the command
 * line); a parent's children are checked for links first (`scanParent`). Returns null for a channel.
 */
export function whyNotChannel(dir: string): NotChannel | null {
  const notFolder = whyNotFolder(dir);
  if (notFolder !== null) return notFolder;
  const cannotList = unlistable(dir);
  if (cannotList !== null) return { kind: 'unreadable', reason: cannotList };
  try {
    assertChannelRoot(dir);
    return null;
  } catch (e) {
    if (!(e instanceof ChannelUnreadableError)) throw e;
    // Gone or replaced since the stat above: said as that, not as a layout it never had.
    if (!fs.existsSync(dir)) return { kind: 'gone', reason: 'no such folder' };
    return { kind: 'not_channel', reason: 'no tasks/ or agents/ folder' };
  }
}

/** Whether `dir` is a channel folder (the rule: `whyNotChannel`). */
export function isChannelFolder(dir: string): boolean {
  return whyNotChannel(dir) === null;
}

/** A child folder of a parent that is a channel: its name (the folder's, canonical) and where it is. */
export interface ChildChannel {
  readonly name: string;
  readonly root: string;
}

/** An entry of a parent that is not served, and why (said once by the channel set). */
export interface IgnoredChild {
  readonly root: string;
  readonly reason: string;
}

/** What a look at a parent found; `problem` says why the parent itself could not be listed (nothing else is then known). */
export interface ParentScan {
  readonly parent: string;
  readonly channels: readonly ChildChannel[];
  readonly ignored: readonly IgnoredChild[];
  readonly problem: NotChannel | null;
}

/**
 * Entries a parent may hold and still be looked through: far above the channels one hub carries
 * (tens), low enough that a parent full of something else costs one bounded listing.
 */
export const MAX_PARENT_ENTRIES = 1000;

/**
 * The entries of `parent`, each a channel (named after its folder, lowercase) or ignored with
 * why, in name order. Names starting with `.` are passed over without a word, as the channel
 * reader passes them (Syncthing's `.stfolder`, `.stversions`). A symbolic link is ignored, not
 * followed: a parent may be a folder other machines write into, and a link there could point
 * anywhere; a linked channel is served by naming it on the command line. A child whose folder
 * name is not a channel name is ignored with how to serve it (`name=path`). Names are not
 * checked against each other here: two children may share a canonical name (`Alpha`, `alpha`);
 * the channel set decides which one keeps it.
 */
export function scanParent(parent: string): ParentScan {
  const whole = whyNotFolder(parent);
  if (whole !== null) return { parent, channels: [], ignored: [], problem: whole };
  const listed = listCapped(parent, MAX_PARENT_ENTRIES);
  if ('refused' in listed) return { parent, channels: [], ignored: [], problem: { kind: 'unreadable', reason: listed.refused } };
  const channels: ChildChannel[] = [];
  const ignored: IgnoredChild[] = [];
  for (const entry of listed.names) {
    if (entry.startsWith('.')) continue;
    const root = path.join(parent, entry);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(root);
    } catch (e) {
      // Gone between the listing and the look: not there, so nothing to say.
      if (errCode(e) === 'ENOENT') continue;
      ignored.push({ root, reason: `cannot look at it: ${errCode(e)}` });
      continue;
    }
    if (st.isSymbolicLink()) {
      ignored.push({ root, reason: 'a symbolic link, not followed (name the folder it points to on the command line to serve it)' });
      continue;
    }
    if (!st.isDirectory()) {
      ignored.push({ root, reason: 'not a folder' });
      continue;
    }
    const not = whyNotChannel(root);
    if (not !== null) {
      if (not.kind !== 'gone') ignored.push({ root, reason: not.reason });
      continue;
    }
    if (!isChannelName(entry)) {
      ignored.push({ root, reason: `a channel, but "${entry}" is not a channel name (${CHANNEL_NAME_RULE}): serve it as name=${root}` });
      continue;
    }
    channels.push({ name: canonicalName(entry), root });
  }
  return { parent, channels, ignored, problem: null };
}

/** Why `dir` is not a folder (following a link): gone, something else, or not to be looked at; null for a folder. */
function whyNotFolder(dir: string): NotChannel | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch (e) {
    const code = errCode(e);
    return code === 'ENOENT' || code === 'ENOTDIR' ? { kind: 'gone', reason: 'no such folder' } : { kind: 'unreadable', reason: `cannot look at it: ${code}` };
  }
  return st.isDirectory() ? null : { kind: 'not_folder', reason: 'not a folder' };
}
