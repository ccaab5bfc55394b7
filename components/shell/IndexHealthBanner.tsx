import type { HealthCode, IndexHealth } from '@/lib/api/types';

/** What the operator reads for each reason the board may not be current. */
function sentence(code: HealthCode): { title: string; detail: string } {
  switch (code) {
    case 'index_write_failed':
      return { title: 'The index cannot be written', detail: 'showing the last good board; retrying every second, and catching up when it can write again' };
    case 'index_rebuilding':
      return { title: 'The index is being rebuilt', detail: 'its database was deleted or replaced; the board fills in again from the folder' };
    case 'folder_missing':
      return { title: 'The channel folder is missing', detail: 'this board is not the folder’s; actions are refused until it is back' };
    case 'folder_unreadable':
      return { title: 'A folder of the channel cannot be listed', detail: 'the board lacks what is in it (see Problems); check its permissions' };
  }
}

/** The header's notice that the board is not current (GET /api/board's index_health); nothing when it is. */
export function IndexHealthBanner({ health }: { readonly health: IndexHealth | undefined }) {
  if (!health || health.state === 'ok') return null;
  const s = sentence(health.code);
  return (
    <div role="alert" data-index-health={health.code} className="border-t border-amber-300 bg-amber-50 px-4 py-1.5 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-100">
      <span className="font-medium">{s.title}</span> <span>— {s.detail}</span>{' '}
      <span className="text-amber-800 dark:text-amber-300" title={health.reason}>
        ({health.reason})
      </span>
    </div>
  );
}
