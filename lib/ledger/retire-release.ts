/**
 * A retire's release, the one reading derive.ts, channel.ts, holds.ts and the flags share. Pure.
 */
import type { ReleaseRecord } from './records';

/**
 * Whether a release is a retire's: its reason is `retired` (blanks around it ignored) and someone
 * other than the released agent wrote it, as `ferry channel retire` and claimboard's retire do.
 * An agent's release of itself is never a retire, whatever its reason. No clock plays a part.
 */
export function isRetireRelease(r: Pick<ReleaseRecord, 'reason' | 'releaser' | 'released'>): boolean {
  return r.reason.trim() === 'retired' && r.releaser !== r.released;
}
