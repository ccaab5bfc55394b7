import type { Metadata } from 'next';
import { AgentsTable } from '@/components/agent/AgentsTable';
import { channelSearchParam } from '@/lib/ui/params';

export const metadata: Metadata = { title: 'Agents' };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** The roster (in a hub, of `?channel=`, or every channel's). */
export default async function AgentsPage({ searchParams }: Props) {
  const channel = channelSearchParam(await searchParams);
  return <AgentsTable {...(channel ? { channel } : {})} />;
}
