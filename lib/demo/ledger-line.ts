import 'server-only';
/**
 * A writer's own hash-chained ledger, `ledger.<signer>.jsonl`: one signed line appended at a time,
 * the whole file rewritten atomically so a reader never sees half a line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ledgerLinePayload } from '../ledger/payloads';
import { nodeSign } from '../index/disk/node-sign';
import { parseTimestamp } from '../ledger/time';
import { sha256Hex, sha256HexOfText } from '../ledger/canonical';
import { splitLines } from '../ledger/ledger-file';
import { writerTime, type Identity } from './identity';
import { requireName, writeFileAtomic, type At, type Written } from './record-file';
import { ChannelWriteError } from './write-error';

const enc = new TextEncoder();

/** A ledger line's own fields; `actor` defaults to the signer, `created_at` to the writer's clock. */
export interface LedgerLineFields {
  /** e.g. `order`, `claim`, `result`, `review`, `release`, `retire`, `reopen`, `ack`. */
  readonly kind: string;
  readonly summary: string;
  /** Usually the order id; omitted when absent. */
  readonly reference?: string | null;
  readonly actor?: string;
}

/**
 * Appends one signed line to `ledger.<signer>.jsonl`: `prev` is the hex
 * SHA-256 of the file's last line's exact text (empty for the first line), the signature
 * covers `ledgerLinePayload`. The whole file is rewritten through a dot-temp file and a rename,
 * so a reader never sees half a line. Only the signer's own file is ever written.
 * Returns the new file (its `bytes` are the whole file).
 */
export function appendLedgerLine(root: string, signer: Identity, line: LedgerLineFields, opts: At = {}): Written {
  requireName('signer', signer.name);
  const rel = `ledger.${signer.name}.jsonl`;
  const abs = path.join(root, rel);
  let previous = '';
  try {
    previous = fs.readFileSync(abs, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const lines = splitLines(previous);
  const last = lines.length > 0 ? (lines[lines.length - 1] ?? null) : null;
  const prev = last === null ? '' : sha256HexOfText(last);
  const createdAt = writerTime(signer, opts.atMs);
  const created = parseTimestamp(createdAt);
  if (!created.ok) throw new ChannelWriteError('invalid_record', `created_at: ${created.reason}`);
  const actor = line.actor ?? signer.name;
  const reference = line.reference ?? null;
  let signature: string;
  try {
    signature = nodeSign(
      signer.seedHex,
      ledgerLinePayload({ kind: line.kind, actor, summary: line.summary, reference, created_at: created.value, prev }),
    );
  } catch (e) {
    throw new ChannelWriteError('invalid_record', `${signer.name}: ${(e as Error).message}`);
  }
  const text = JSON.stringify({
    kind: line.kind,
    actor,
    summary: line.summary,
    ...(reference !== null ? { reference } : {}),
    created_at: createdAt,
    prev,
    signed_by: signer.name,
    signature,
  });
  const head = previous.length > 0 && !previous.endsWith('\n') ? previous + '\n' : previous;
  const bytes = enc.encode(head + text + '\n');
  fs.mkdirSync(root, { recursive: true });
  writeFileAtomic(abs, bytes, 'replace');
  return { rel, path: abs, bytes, digest: sha256Hex(bytes) };
}
