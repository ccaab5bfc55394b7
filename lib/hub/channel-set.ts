import 'server-only';
/**
 * The channels a hub serves now: the ones named on the command line and the channel folders of
 * its parent folders, looked at again on every `rescan()`, which says what changed. Reads the
 * disk, writes and deletes nothing: a channel that leaves is only no longer served.
 */
import fs from 'node:fs';
import type { ChannelSpec } from './args';
import { scanParent, whyNotChannel, type NotChannel, type NotChannelKind } from './folders';

/** A channel served: its name (unique, canonical), its folder, and the parent it was found in (null: named on the command line). */
export interface Channel {
  readonly name: string;
  readonly root: string;
  readonly parent: string | null;
}

/**
 * Why a channel left, in words: the folder is gone, is no longer a folder, cannot be read, no
 * longer has a channel's layout, or is still a channel that is no longer served (see its notice:
 * it became a link in its parent, say).
 */
export interface RemovedChannel {
  readonly channel: Channel;
  readonly kind: NotChannelKind | 'not_served';
  readonly why: string;
}

/** A folder (a channel named on the command line, a parent's entry, or a parent) that is not served, and why. */
export interface Notice {
  readonly root: string;
  /** The name it would be served under, when one is known. */
  readonly name: string | null;
  readonly reason: string;
}

/**
 * What a rescan changed, against the one before (the first, against nothing). A name may leave
 * and arrive in one rescan with another folder (a parent's `x` gone, another parent's `x` there):
 * removals are to be applied before additions. `notices` holds each folder not served that was
 * not said before, or is now not served for another reason: each is said once, not on every rescan.
 */
export interface ChannelChanges {
  readonly added: readonly Channel[];
  readonly removed: readonly RemovedChannel[];
  readonly notices: readonly Notice[];
}

/** The words for a channel leaving because its folder is `not`. */
export function removalWords(not: NotChannel): string {
  switch (not.kind) {
    case 'gone':
      return 'folder gone';
    case 'not_folder':
      return 'no longer a folder';
    case 'unreadable':
      return `unreadable (${not.reason})`;
    case 'not_channel':
      return `no longer a channel (${not.reason})`;
  }
}

/** One folder that could be served this rescan, before names and folders are checked against each other. */
interface Candidate {
  readonly name: string;
  readonly root: string;
  readonly parent: string | null;
}

/** The folder's identity (device and inode, following a link), or null when it cannot be had. */
function folderId(root: string): string | null {
  try {
    const st = fs.statSync(root, { bigint: true });
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

/**
 * The hub's channels, name -> folder. Names: a command-line channel's is its own (given or its
 * folder's: lib/hub/args.ts), reserved for the whole run even while its folder is missing; a
 * parent's child is named after its folder. When two folders would share a name, or are one
 * folder (a link to a folder already served, compared by device and inode), the one served
 * already keeps it, else the first in the order the command line gives (its channels, then each
 * parent's children by folder name), and the other is refused with a notice saying how to name
 * it. A refusal, not a suffix (`alpha-2`): a suffix would depend on which folder was seen first,
 * so one folder could be `alpha-2` today and `alpha` after a restart, while a name stands in
 * URLs, alerts and metrics labels; refused, every name is its folder's or the operator's.
 * Tolerant: a folder or a parent that is gone or cannot be read is a notice or a removal with
 * its reason, never a throw; a parent that cannot be listed keeps the channels found in it that
 * are still channels (each is looked at directly).
 */
export class ChannelSet {
  private readonly specs: readonly ChannelSpec[];
  private readonly parents: readonly string[];
  /** The command line's names (name -> folder), kept for the whole run. */
  private readonly reserved: ReadonlyMap<string, string>;
  private current = new Map<string, Channel>();
  /** What each unserved folder was last said to be (root -> reason). */
  private said = new Map<string, string>();

  constructor(specs: readonly ChannelSpec[], parents: readonly string[]) {
    this.specs = specs;
    this.parents = parents;
    this.reserved = new Map(specs.map((s) => [s.name, s.root]));
  }

  /** The channels served now, by name. */
  channels(): ReadonlyMap<string, Channel> {
    return this.current;
  }

  /** Looks at every folder again; the channels served from now on, and what changed. */
  rescan(): ChannelChanges {
    const notices = new Map<string, Notice>();
    const notice = (n: Notice) => {
      if (!notices.has(n.root)) notices.set(n.root, n);
    };
    const verdicts = new Map<string, NotChannel>();
    const candidates: Candidate[] = [];

    for (const s of this.specs) {
      const not = whyNotChannel(s.root);
      if (not === null) candidates.push({ name: s.name, root: s.root, parent: null });
      else {
        verdicts.set(s.root, not);
        notice({ root: s.root, name: s.name, reason: not.reason });
      }
    }
    for (const parent of this.parents) {
      const scan = scanParent(parent);
      if (scan.problem !== null) {
        notice({ root: parent, name: null, reason: `parent folder: ${scan.problem.reason}` });
        // Its channels cannot be listed: each one served is looked at on its own.
        for (const c of this.current.values()) {
          if (c.parent !== parent) continue;
          const not = whyNotChannel(c.root);
          if (not === null) candidates.push({ name: c.name, root: c.root, parent });
          else verdicts.set(c.root, not);
        }
        continue;
      }
      for (const i of scan.ignored) notice({ root: i.root, name: null, reason: i.reason });
      for (const c of scan.channels) candidates.push({ name: c.name, root: c.root, parent });
    }

    const next = new Map<string, Channel>();
    const byId = new Map<string, string>();
    const take = (c: Candidate): void => {
      const given = c.parent === null ? undefined : this.reserved.get(c.name);
      if (given !== undefined) {
        notice({ root: c.root, name: c.name, reason: `the name "${c.name}" is given to ${given} on the command line: serve this one as <name>=${c.root}` });
        return;
      }
      const holder = next.get(c.name);
      if (holder !== undefined) {
        notice({ root: c.root, name: c.name, reason: `the name "${c.name}" is taken by ${holder.root}: serve this one as <name>=${c.root}` });
        return;
      }
      const id = folderId(c.root);
      if (id === null) {
        notice({ root: c.root, name: c.name, reason: 'no such folder' });
        return;
      }
      const same = byId.get(id);
      if (same !== undefined) {
        notice({ root: c.root, name: c.name, reason: `the same folder as channel "${same}"` });
        return;
      }
      next.set(c.name, { name: c.name, root: c.root, parent: c.parent });
      byId.set(id, c.name);
    };
    const served = (c: Candidate) => {
      const now = this.current.get(c.name);
      return now !== undefined && now.root === c.root;
    };
    for (const c of candidates) if (served(c)) take(c);
    for (const c of candidates) if (!served(c)) take(c);

    const added = [...next.values()].filter((c) => !served(c));
    const removed: RemovedChannel[] = [];
    for (const c of this.current.values()) {
      const still = next.get(c.name);
      if (still !== undefined && still.root === c.root) continue;
      const not = verdicts.get(c.root) ?? whyNotChannel(c.root);
      removed.push(
        not === null
          ? { channel: c, kind: 'not_served', why: `no longer served: ${notices.get(c.root)?.reason ?? 'not found in its parent folder'}` }
          : { channel: c, kind: not.kind, why: removalWords(not) },
      );
    }

    // Said once: a folder's notice again only when its reason changed; one served again, or gone, is
    // forgotten. A channel that leaves is said by its removal, not by a notice too.
    const leaving = new Set(removed.map((r) => r.channel.root));
    const fresh = [...notices.values()].filter((n) => this.said.get(n.root) !== n.reason && !leaving.has(n.root));
    this.said = new Map([...notices.values()].map((n) => [n.root, n.reason]));
    this.current = next;
    return { added, removed, notices: fresh };
  }
}
