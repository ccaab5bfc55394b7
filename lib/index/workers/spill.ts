import 'server-only';
/**
 * The signatures a cold index took unchecked (cold-pass.ts pass 1), kept on disk until they are
 * checked (pass 2): the folders are not read a second time, and memory does not grow with the
 * channel. Each thread appends to its own segment files in a private temporary directory (never
 * in the channel), a chunk of folders at a time; a folder's records are all in one segment.
 *
 * A record: u16 folder-name length, the name (UTF-8), the 32-byte key, the 64-byte signature,
 * u32 message length, the message (UTF-8, the bytes the verifier checks).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ed25519VerifyBytes } from '../disk/verifier';

/** A segment is closed at the end of the chunk that takes it past this size (bytes). */
const SEGMENT_BYTES = 2 * 1024 * 1024;
const HEX64 = /^[0-9a-fA-F]{64}$/;
const HEX128 = /^[0-9a-fA-F]{128}$/;

/** One thread's writer of segment files `<prefix>-<n>.bin` in `dir`. */
export class SpillWriter {
  private parts: Buffer[] = [];
  private segment = 0;
  private segmentSize = 0;

  constructor(
    private readonly dir: string,
    private readonly prefix: string,
  ) {}

  /**
   * Keeps one signature to check later. False (nothing kept) for a key or signature that is not
   * 64 / 128 hex digits: the caller verifies that one now.
   */
  add(folder: string, keyHex: string, message: string, signatureHex: string): boolean {
    if (!HEX64.test(keyHex) || !HEX128.test(signatureHex)) return false;
    const name = Buffer.from(folder, 'utf8');
    const msg = Buffer.from(message, 'utf8');
    const head = Buffer.allocUnsafe(2 + name.length + 32 + 64 + 4);
    let o = head.writeUInt16LE(name.length, 0);
    o += name.copy(head, o);
    o += head.write(keyHex, o, 'hex');
    o += head.write(signatureHex, o, 'hex');
    head.writeUInt32LE(msg.length, o);
    this.parts.push(head, msg);
    return true;
  }

  /** Appends what was kept since the last flush to the current segment (call at the end of each chunk of folders). */
  flush(): void {
    if (this.parts.length === 0) return;
    const data = Buffer.concat(this.parts);
    this.parts = [];
    fs.appendFileSync(path.join(this.dir, `${this.prefix}-${this.segment}.bin`), data);
    this.segmentSize += data.length;
    if (this.segmentSize >= SEGMENT_BYTES) {
      this.segment++;
      this.segmentSize = 0;
    }
  }
}

/** What checking one segment found: the folders all of whose signatures held, those where one failed, and how many were checked. */
export interface SegmentCheck {
  readonly ok: readonly string[];
  readonly failed: readonly string[];
  readonly checked: number;
}

/** Verifies every signature of the segment `file` with `verify`, on the bytes kept. Throws when the file cannot be read or is cut short. */
export function checkSegment(file: string, verify: Ed25519VerifyBytes): SegmentCheck {
  const b = fs.readFileSync(file);
  const seen = new Set<string>();
  const failed = new Set<string>();
  let checked = 0;
  for (let o = 0; o < b.length; ) {
    if (o + 2 > b.length) throw new Error(`${file}: cut short at byte ${o}`);
    const n = b.readUInt16LE(o);
    const end = o + 2 + n + 32 + 64 + 4;
    if (end > b.length) throw new Error(`${file}: cut short at byte ${o}`);
    const folder = b.toString('utf8', o + 2, o + 2 + n);
    const len = b.readUInt32LE(o + 2 + n + 96);
    if (end + len > b.length) throw new Error(`${file}: cut short at byte ${o}`);
    const ok = verify(b.subarray(o + 2 + n, o + 2 + n + 32), b.subarray(end, end + len), b.subarray(o + 2 + n + 32, o + 2 + n + 96));
    o = end + len;
    seen.add(folder);
    checked++;
    if (!ok) failed.add(folder);
  }
  return { ok: [...seen].filter((d) => !failed.has(d)), failed: [...failed], checked };
}

/** The segment files in `dir`, largest first (the big ones start first, so the threads finish together). */
export function segmentsIn(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.bin'))
    .map((f) => path.join(dir, f))
    .map((f) => [f, fs.statSync(f).size] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([f]) => f);
}
