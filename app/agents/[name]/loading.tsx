import { Loading } from '@/components/ui/page';

export default function SegmentLoading() {
  return <Loading what="the page" />;
}
