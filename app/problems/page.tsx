import type { Metadata } from 'next';
import { ProblemsView } from '@/components/problems/ProblemsView';
import { channelSearchParam } from '@/lib/ui/params';

export const metadata: Metadata = { title: 'Problems' };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** The problems (in a hub, of `?channel=`, or every channel's). */
export default async function ProblemsPage({ searchParams }: Props) {
  const channel = channelSearchParam(await searchParams);
  return <ProblemsView {...(channel ? { channel } : {})} />;
}
