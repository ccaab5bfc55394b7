import fs from 'node:fs';
import { errorResponse, json, withReadToken } from '@/lib/api/http';
import { settings } from '@/lib/config';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * GET /api/demo-key: in demo mode only (`npm start` with no channel), the demo operator's seed,
 * so a newcomer can act within a minute. 404 on a real channel: no key is ever served there.
 */
function get() {
  const file = settings.demoOperatorKey();
  if (!file) return errorResponse('not_found', 'no demo key: this dashboard serves a real channel');
  try {
    const seed = fs.readFileSync(file, 'utf8').trim();
    return json({ name: 'ops', seed, note: 'demo only: this key signs for the demo operator ops of ./.claimboard/demo' });
  } catch {
    return errorResponse('not_found', 'the demo key file is missing');
  }
}

export const GET = withReadToken(get);
