import { Board } from '@/components/board/Board';
import { boardForPage } from '@/lib/api/board-get';
import { filtersToParams, parseFilters } from '@/lib/ui/board-filters';

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * The board (a client component: filters live in the URL, updates come from /api/board). The
 * server renders it with the board of the URL's filters, so the lanes and their first cards are
 * in the page itself rather than one round trip after the scripts have run. There is no
 * loading.tsx at the app's root for the same reason: it would make this page a boundary of its
 * own, sent after the shell and revealed late (React batches the reveal of streamed boundaries).
 */
export default async function BoardPage({ searchParams }: Props) {
  const sp = await searchParams;
  const params = { get: (name: string) => [sp[name]].flat()[0] ?? null };
  const key = filtersToParams(parseFilters(params)).toString();
  const data = boardForPage(key ? `?${key}` : '');
  return <Board initial={data ? { key, data } : undefined} />;
}
