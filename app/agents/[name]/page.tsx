import type { Metadata } from 'next';
import { AgentView } from '@/components/agent/AgentView';
import { channelSearchParam, routeParam } from '@/lib/ui/params';

type Props = { params: Promise<{ name: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { name } = await params;
  return { title: routeParam(name) };
}

/** One agent (of the channel `?channel=` names, in a hub): what it holds, what it held, last seen, its key and clock. */
export default async function AgentPage({ params, searchParams }: Props) {
  const { name } = await params;
  const channel = channelSearchParam(await searchParams);
  return <AgentView name={routeParam(name)} {...(channel ? { channel } : {})} />;
}
