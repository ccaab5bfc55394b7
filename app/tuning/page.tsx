import type { Metadata } from 'next';
import { TuningView } from '@/components/tuning/TuningView';

export const metadata: Metadata = { title: 'Threshold' };

/** Whether the stale threshold fits the fleet: heartbeat gaps, run durations, time in lane (issue 12, item 3). */
export default function TuningPage() {
  return <TuningView />;
}
