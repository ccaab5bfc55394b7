import type { IndexHealth } from '@/lib/api/types';
import { healthSentence } from '@/lib/ui/channel-health';

/**
 * The header's notice that the board is not current (GET /api/board's index_health); nothing when
 * it is. In a hub, `channel` names the channel whose writer said so.
 */
export function IndexHealthBanner({ health, channel }: { readonly health: IndexHealth | undefined; readonly channel?: string | null }) {
  if (!health || health.state === 'ok') return null;
  const s = healthSentence(health.code);
  return (
    <div role="alert" data-index-health={health.code} className="border-t border-amber-300 bg-amber-50 px-4 py-1.5 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-100">
      {channel ? <span className="font-medium">Channel {channel}: </span> : null}
      <span className="font-medium">{s.title}</span> <span>— {s.detail}</span>{' '}
      <span className="text-amber-800 dark:text-amber-300" title={health.reason}>
        ({health.reason})
      </span>
    </div>
  );
}
