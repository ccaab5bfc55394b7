import { Loading } from '@/components/ui/page';

export default function TuningLoading() {
  return <Loading what="the tuning" />;
}
