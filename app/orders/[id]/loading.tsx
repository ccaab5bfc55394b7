import { Loading } from '@/components/ui/page';

export default function OrderLoading() {
  return <Loading what="the order" />;
}
