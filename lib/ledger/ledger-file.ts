/**
 * Ledger files: `ledger.<signer>.jsonl` and the legacy `ledger.jsonl`, each
 * its own hash chain, read as ferryman's `read_ledger` reads them.
 */
import { z } from 'zod';
import { parseStrictJsonText, toPlain } from './json';
import { sha256HexOfText } from './canonical';
import { canonicalName, isSafeComponent } from './names';
import { ledgerLinePayload } from './payloads';
import { parseTimestamp, type Timestamp } from './time';
import { checkSignature, type Ed25519Verify, type Roster, type SignatureCheck } from './verify';

/** One ledger entry as read. */
export interface LedgerEntry {
  /** 1-based line number in its file. */
  readonly line: number;
  readonly kind: string;
  readonly actor: string;
  readonly summary: string;
  readonly reference: string | null;
  readonly created_at: Timestamp;
  readonly prev: string;
  readonly signed_by: string | null;
  /** Whether this line's `prev` is the hash of the line before it (empty on the first line). */
  readonly chained: boolean;
  /** Its signature check; `wrong_signer` when it verifies but its signer is not the file's. */
  readonly signature: SignatureCheck | 'wrong_signer';
  /** Whether this line chained and verified (each line judged on its own: a line after a broken one may be ok). */
  readonly ok: boolean;
}

/** The integrity report of one ledger file. */
export interface LedgerFileReport {
  /** Lines read: reading stops at the first line that does not parse as an entry. */
  readonly entries: number;
  /** True when every line parses, chains, and verifies. */
  readonly intact: boolean;
  /** 1-based line of the first failure, when not intact. */
  readonly broken_at?: number;
  /** Why that line broke. */
  readonly reason?: string;
  readonly lines: readonly LedgerEntry[];
}

const LineShape = z.object({
  kind: z.string(),
  actor: z.string(),
  summary: z.string(),
  reference: z.string().nullish(),
  created_at: z.string(),
  prev: z.string(),
  signed_by: z.string().nullish(),
  signature: z.string().nullish(),
});

/**
 * The signer a ledger file belongs to: `ledger.<signer>.jsonl` gives the canonical signer,
 * `ledger.jsonl` (legacy, any signer) gives null, and anything else is not a ledger file
 * name (undefined).
 */
export function ledgerFileSigner(base: string): string | null | undefined {
  if (base === 'ledger.jsonl') return null;
  if (!base.startsWith('ledger.') || !base.endsWith('.jsonl')) return undefined;
  const signer = base.slice('ledger.'.length, base.length - '.jsonl'.length);
  return isSafeComponent(signer) ? canonicalName(signer) : undefined;
}

/**
 * Splits text into lines as Rust's `str::lines` does: on `\n`, dropping one trailing `\r`
 * from each line, with no final empty line after a trailing newline.
 */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const parts = text.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/**
 * Reads one ledger file. `signer` is the file's signer (canonical) or null
 * for the legacy file. Each line must parse, carry `prev` = hex SHA-256 of the previous line's
 * exact text (empty on the first), and verify as signed by `signed_by`, who must be the
 * file's signer. Reading stops at the first line that does not parse; `entries` counts the
 * lines read; the first failure of any kind is `broken_at`. Never throws.
 */
export function readLedgerFile(
  text: string,
  signer: string | null,
  roster: Roster,
  verify: Ed25519Verify,
): LedgerFileReport {
  const lines = splitLines(text);
  const out: LedgerEntry[] = [];
  let brokenAt: number | undefined;
  let reason: string | undefined;
  const fail = (line: number, why: string) => {
    if (brokenAt === undefined) {
      brokenAt = line;
      reason = why;
    }
  };
  let previous: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const text = lines[i] ?? '';
    const parsed = parseStrictJsonText(text);
    const shaped = parsed.ok ? LineShape.safeParse(toPlain(parsed.node)) : null;
    const created = shaped?.success ? parseTimestamp(shaped.data.created_at) : null;
    if (!parsed.ok || !shaped?.success || !created?.ok) {
      fail(
        lineNo,
        !parsed.ok
          ? `line ${lineNo} is not strict JSON: ${parsed.reason}`
          : created && !created.ok
            ? `line ${lineNo}: created_at: ${created.reason}`
            : `line ${lineNo} is not a ledger entry`,
      );
      break;
    }
    const d = shaped.data;
    const expectedPrev = previous === null ? '' : sha256HexOfText(previous);
    let ok = true;
    const chained = d.prev === expectedPrev;
    if (!chained) {
      ok = false;
      fail(lineNo, `line ${lineNo}: prev does not match the hash of line ${lineNo - 1}`);
    }
    const fields = {
      kind: d.kind,
      actor: d.actor,
      summary: d.summary,
      reference: d.reference ?? null,
      created_at: created.value,
      prev: d.prev,
    };
    const check = checkSignature(d.signed_by ?? null, d.signature ?? null, ledgerLinePayload(fields), roster, verify);
    let signature: SignatureCheck | 'wrong_signer' = check;
    if (check !== 'valid') {
      ok = false;
      fail(lineNo, `line ${lineNo}: signature ${check.replace('_', ' ')}`);
    } else if (signer !== null && canonicalName(d.signed_by ?? '') !== signer) {
      ok = false;
      signature = 'wrong_signer';
      fail(lineNo, `line ${lineNo}: signed by ${canonicalName(d.signed_by ?? '')}, not the file's signer ${signer}`);
    }
    out.push({ line: lineNo, ...fields, signed_by: d.signed_by ?? null, chained, signature, ok });
    previous = text;
  }
  return brokenAt === undefined
    ? { entries: out.length, intact: true, lines: out }
    : { entries: out.length, intact: false, broken_at: brokenAt, reason, lines: out };
}
