import path from 'node:path';

/**
 * The real ferry's kit (its `bin/ferry`, `bin/ferry-oracle`, `bin/fake-engine`, `ferry-tasks.sh`)
 * when CLAIMBOARD_FERRY_KIT names its folder, else null. The repo's own tests never need it:
 * with it, the tests that can also ask ferry itself do (`scripts/test.sh --shared` sets it).
 */
export const FERRY_KIT: string | null = process.env.CLAIMBOARD_FERRY_KIT ? path.resolve(process.env.CLAIMBOARD_FERRY_KIT) : null;
