import path from 'node:path';
import { errorResponse, json, withDb, actionsEnabled, withReadToken } from '@/lib/api/http';
import { ledgerPrevOf } from '@/lib/actions/write';
import { ledgerPathOf } from '@/lib/ledger/actions';
import { canonicalName, isSafeComponent } from '@/lib/ledger/names';
import { settings } from '@/lib/config';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * GET /api/operators/:name: whether the name is in the roster and an operator of this channel,
 * its pinned key (to check an imported key against), and the hash of the last line of its ledger
 * file (`ledger_prev`: what the next signed ledger line must chain to).
 */
async function get(_req: Request, { params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  if (!isSafeComponent(name)) return errorResponse('bad_request', `"${name}" is not a name`);
  return withDb((db) => {
    const n = canonicalName(name);
    const row = db.prepare('SELECT summary FROM agents WHERE name = ?').get(n) as { summary: string } | undefined;
    const summary = row ? (JSON.parse(row.summary) as { is_operator: boolean; public_key: string | null; retired: boolean }) : null;
    const root = settings.channel() ?? '';
    const { prev } = ledgerPrevOf(path.join(root, ledgerPathOf(n)));
    return json({
      name: n,
      in_roster: summary !== null,
      is_operator: summary?.is_operator ?? false,
      public_key: summary?.public_key ?? null,
      ledger_prev: prev,
      actions_enabled: actionsEnabled(),
      demo_key_available: Boolean(settings.demoOperatorKey()),
    });
  });
}

export const GET = withReadToken(get);
