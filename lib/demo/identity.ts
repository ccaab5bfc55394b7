import 'server-only';
/**
 * Who writes into a demo channel: an identity (name, Ed25519 seed, clock offset), the writer's
 * clock its records carry, and its seed file, kept outside the synced folder as ferryman keeps
 * `keys/<name>.key`.
 *
 * Clocks. `atMs` parameters are instants on THIS machine's clock (ms since the Unix epoch,
 * default `Date.now()`). A record's timestamps are the WRITER's clock: `atMs +
 * identity.clockOffsetMs`, rendered as RFC 3339 UTC with `Z` and milliseconds
 * (`2026-11-20T09:05:00.000Z`). A simulated agent with a skewed clock passes its skew as
 * `clockOffsetMs`; nothing here ever compares clocks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { nodePublicKey } from '../index/disk/node-sign';
import { formatLocalInstant } from '../ledger/time';
import { hexToBytes } from '../ledger/hex';
import { ChannelWriteError } from './write-error';

/** Someone who writes into the channel: a worker agent or an operator. */
export interface Identity {
  /** The name as written in records and file names; must be a safe component. */
  readonly name: string;
  /** Ed25519 seed, 64 hex digits (what ferryman stores in `keys/<name>.key`). */
  readonly seedHex: string;
  /** The writer's clock minus this machine's clock, in ms (default 0): +3 h = 10_800_000. */
  readonly clockOffsetMs?: number;
}

/**
 * The writer's timestamp for a local instant: `atMs + clockOffsetMs` as RFC 3339 UTC with
 * milliseconds and `Z` (e.g. `2026-11-20T12:05:00.000Z`). `atMs` defaults to `Date.now()`.
 */
export function writerTime(identity: Pick<Identity, 'clockOffsetMs'>, atMs: number = Date.now()): string {
  return formatLocalInstant(atMs + (identity.clockOffsetMs ?? 0));
}

/** A fresh Ed25519 seed from the OS's CSPRNG: 64 lowercase hex digits. */
export function generateSeed(): string {
  return randomBytes(32).toString('hex');
}

/** The public key (64 hex) of an identity's seed. Throws ChannelWriteError `invalid_record` on a bad seed. */
export function publicKeyOf(identity: Pick<Identity, 'seedHex'>): string {
  const seed = hexToBytes(identity.seedHex);
  if (!seed || seed.length !== 32) throw new ChannelWriteError('invalid_record', 'an Ed25519 seed is 64 hex digits');
  return nodePublicKey(identity.seedHex);
}

/**
 * Writes a seed file as ferryman keeps it: the hex seed and a newline, mode 0600. Refuses to
 * replace an existing file (ChannelWriteError `exists`); creates missing parent directories
 * (mode 0700). Keys never belong in the synced folder: callers write them outside it.
 */
export function writeKeyFile(file: string, seedHex: string): void {
  if (!/^[0-9a-fA-F]{64}$/.test(seedHex)) throw new ChannelWriteError('invalid_record', 'an Ed25519 seed is 64 hex digits');
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new ChannelWriteError('exists', `${file} already exists; not overwritten`);
    throw e;
  }
  try {
    fs.writeSync(fd, seedHex.toLowerCase() + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(file, 0o600); // the umask may have narrowed it; never widened
}

/** Reads a seed file (hex seed, surrounding whitespace ignored). Throws when missing or not 64 hex digits. */
export function readKeyFile(file: string): string {
  const text = fs.readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new ChannelWriteError('invalid_record', `${file} does not hold a 64-hex-digit seed`);
  return text.toLowerCase();
}
