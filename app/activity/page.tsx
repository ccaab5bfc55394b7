import type { Metadata } from 'next';
import { Suspense } from 'react';
import { ActivityView } from '@/components/activity/ActivityView';
import { Loading } from '@/components/ui/page';

export const metadata: Metadata = { title: 'Activity' };

/** Operator activity (a client component: filters live in the URL, data comes from /api/activity). */
export default function ActivityPage() {
  return (
    <Suspense fallback={<Loading what="the activity" />}>
      <ActivityView />
    </Suspense>
  );
}
