import 'server-only';
/**
 * The operator actions' writes into a channel folder: into the acting
 * operator's own paths, never over another writer's file, never a delete. Every byte goes through
 * lib/fs/atomic-write.ts, the one atomic writer (temp file with a leading dot, fsync, link for a
 * new file, rename over the operator's own, the directory fsynced).
 *
 * A new file refuses anything in its way (a file, a symlink); a file the operator already owns
 * (its reopen or ack, its ledger) is replaced; a ledger line is appended only when the file's
 * last line is still the one the action was signed over. Each write can be staged first (`stage…`:
 * its temp file written, nothing in place), so that an act refuses before any of its files is in
 * place (apply.ts).
 */
import path from 'node:path';
import { sha256HexOfText } from '../ledger/canonical';
import { splitLines } from '../ledger/ledger-file';
import { assertPlainFolders, isSymlink, stageAtomic, WriteError, type StagedWrite } from '../fs/atomic-write';
import { readChannelFile } from '../index/disk/read-channel';

export { WriteError, type StagedWrite } from '../fs/atomic-write';

/**
 * Writes `bytes` at `abs`, which must not exist (docs/channel-format.md: "refuse if a file it did not
 * write is in the way"). Creates missing parent directories (and removes them again if the write
 * fails). Throws WriteError('exists') when something is there, WriteError('io') when the disk
 * refuses (full, read-only, ...). With `root`, never writes through a symlinked folder below it.
 */
export function writeNewFile(abs: string, bytes: Uint8Array, root?: string): void {
  stageNewFile(abs, bytes, root).place();
}

/** writeNewFile's temp file written, not yet in place. Throws as writeNewFile does. */
export function stageNewFile(abs: string, bytes: Uint8Array, root?: string): StagedWrite {
  return stageAtomic(abs, bytes, 'new', root === undefined ? {} : { root });
}

/**
 * Replaces the operator's own file at `abs` (or creates it). The caller has checked that what
 * is there was written by this operator. Refuses a symlink in the way (WriteError('exists')).
 */
export function replaceOwnFile(abs: string, bytes: Uint8Array, root?: string): void {
  stageOwnFile(abs, bytes, root).place();
}

/** replaceOwnFile's temp file written, not yet in place. Throws as replaceOwnFile does. */
export function stageOwnFile(abs: string, bytes: Uint8Array, root?: string): StagedWrite {
  return stageAtomic(abs, bytes, 'replace', root === undefined ? {} : { root });
}

/**
 * The hash a new ledger line's `prev` must carry: hex SHA-256 of the file's last line, '' when
 * the file is missing or empty. The file is read by the indexer's rules
 * (readChannelFile): one it would not read gives `refused`, why, and no line can be chained to it.
 */
export function ledgerPrevOf(abs: string): { readonly prev: string; readonly lastLine: string | null; readonly refused?: string } {
  const text = ledgerText(abs);
  if (text instanceof WriteError) return { prev: '', lastLine: null, refused: text.message };
  const lines = splitLines(text);
  const last = lines[lines.length - 1];
  return last === undefined ? { prev: '', lastLine: null } : { prev: sha256HexOfText(last), lastLine: last };
}

/** A ledger file's text ('' when missing), or why it is not read (readChannelFile's rules). */
function ledgerText(abs: string): string | WriteError {
  const r = readChannelFile(abs);
  if ('missing' in r) return '';
  if ('refused' in r) return new WriteError('exists', `${path.basename(abs)} is not read: ${r.refused}`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(r.bytes);
  } catch {
    return new WriteError('exists', `${path.basename(abs)} is not read: not valid UTF-8`);
  }
}

/**
 * Appends `line` (no newline) to the operator's ledger file at `abs`, atomically (the whole
 * file rewritten through a temp file and renamed), refusing with WriteError('moved_on') when the
 * file's last line no longer hashes to `expectedPrev`.
 */
export function appendLedgerLine(abs: string, line: string, expectedPrev: string, root?: string): void {
  stageLedgerLine(abs, line, expectedPrev, root).place();
}

/**
 * appendLedgerLine's new file written beside the ledger, not yet in place: placing it checks
 * again that the file is what it read (not a symlink, no line added since).
 */
export function stageLedgerLine(abs: string, line: string, expectedPrev: string, root?: string): StagedWrite {
  assertPlainFolders(root, abs);
  if (isSymlink(abs)) throw new WriteError('exists', `${path.basename(abs)} is a symlink; not followed`);
  const read = () => ledgerText(abs);
  const text = read();
  if (text instanceof WriteError) throw text;
  const lines = splitLines(text);
  const last = lines[lines.length - 1];
  const prev = last === undefined ? '' : sha256HexOfText(last);
  if (prev !== expectedPrev) throw new WriteError('moved_on', `${path.basename(abs)} has a new line since this action was signed: sign again`);
  const body = (text.length > 0 && !text.endsWith('\n') ? text + '\n' : text) + line + '\n';
  // Another process appending meanwhile (a CLI action beside the server) would be lost by the
  // rename: the file is read again just before it, and a change refuses (a window of a rename
  // remains; one writer per path makes it the same operator's own second action).
  return stageAtomic(abs, new TextEncoder().encode(body), 'replace', {
    beforePlace: () => {
      const now = read();
      if (now instanceof WriteError) return now;
      return now === text ? null : new WriteError('moved_on', `${path.basename(abs)} changed while writing: sign again`);
    },
  });
}
