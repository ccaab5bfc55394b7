import type { Metadata } from 'next';
import { TuningView } from '@/components/tuning/TuningView';

export const metadata: Metadata = { title: 'Threshold' };

/** Whether the stale threshold fits the fleet: heartbeat gaps, run durations, time in lane. */
export default function TuningPage() {
  return <TuningView />;
}
