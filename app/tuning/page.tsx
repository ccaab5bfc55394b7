import type { Metadata } from 'next';
import { TuningView } from '@/components/tuning/TuningView';
import { channelSearchParam } from '@/lib/ui/params';

export const metadata: Metadata = { title: 'Threshold' };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** Whether the stale threshold fits the fleet (of `?channel=`, in a hub): heartbeat gaps, run durations, time in lane. */
export default async function TuningPage({ searchParams }: Props) {
  const channel = channelSearchParam(await searchParams);
  return <TuningView {...(channel ? { channel } : {})} />;
}
