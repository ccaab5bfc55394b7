import type { Metadata } from 'next';
import { OrderView } from '@/components/order/OrderView';
import { channelSearchParam, routeParam } from '@/lib/ui/params';

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `Order ${routeParam(id)}` };
}

/** One order (of the channel `?channel=` names, in a hub): why it is where it is, its fields, timeline, runs and files. */
export default async function OrderPage({ params, searchParams }: Props) {
  const { id } = await params;
  const channel = channelSearchParam(await searchParams);
  return <OrderView id={routeParam(id)} {...(channel ? { channel } : {})} />;
}
