import { Loading } from '@/components/ui/page';

export default function ActivityLoading() {
  return <Loading what="the activity" />;
}
