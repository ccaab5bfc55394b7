/**
 * Why the demo's channel writer refused a write: the error every writer in lib/demo throws for a
 * refusal it decides itself (the disk's own failures stay lib/fs's WriteError).
 */

/** Why a write was refused. */
export type ChannelWriteErrorCode =
  /** A write-once file is already there (someone, maybe this writer, wrote it before). */
  | 'exists'
  /** The order's directory `tasks/<id>` does not exist (write the order first). */
  | 'no_order'
  /** The fields do not make a valid record (unsafe name, bad timestamp, bad seed...). */
  | 'invalid_record';

/** A refused write. `code` says why; the message names the path. */
export class ChannelWriteError extends Error {
  override readonly name = 'ChannelWriteError';
  constructor(
    readonly code: ChannelWriteErrorCode,
    message: string,
  ) {
    super(message);
  }
}
