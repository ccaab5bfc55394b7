import type { Metadata } from 'next';
import { HistoryView } from '@/components/history/HistoryView';
import { historyForPage } from '@/lib/api/holds-get';
import { historySearch, parseHistoryParams } from '@/lib/ui/history';

export const metadata: Metadata = { title: 'History' };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * The fleet history (a client component: the window and query live in the URL, updates come from
 * /api/history). The server renders it with the answer for the URL, so the picture is in the page
 * itself; no loading.tsx, for the board's reason (app/page.tsx).
 */
export default async function HistoryPage({ searchParams }: Props) {
  const sp = await searchParams;
  const search = historySearch(parseHistoryParams({ get: (name: string) => [sp[name]].flat()[0] ?? null }));
  const data = historyForPage(search ? `?${search}` : '');
  return <HistoryView initial={data ? { search, data } : undefined} />;
}
