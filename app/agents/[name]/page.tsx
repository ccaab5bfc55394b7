import type { Metadata } from 'next';
import { AgentView } from '@/components/agent/AgentView';
import { routeParam } from '@/lib/ui/params';

type Props = { params: Promise<{ name: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { name } = await params;
  return { title: routeParam(name) };
}

/** One agent: what it holds, what it held, last seen, its key and clock. */
export default async function AgentPage({ params }: Props) {
  const { name } = await params;
  return <AgentView name={routeParam(name)} />;
}
