import type { Metadata } from 'next';
import { OrderView } from '@/components/order/OrderView';
import { routeParam } from '@/lib/ui/params';

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `Order ${routeParam(id)}` };
}

/** One order: why it is where it is, its fields, timeline, runs and files. */
export default async function OrderPage({ params }: Props) {
  const { id } = await params;
  return <OrderView id={routeParam(id)} />;
}
