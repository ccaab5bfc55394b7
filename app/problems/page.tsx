import type { Metadata } from 'next';
import { ProblemsView } from '@/components/problems/ProblemsView';

export const metadata: Metadata = { title: 'Problems' };

export default function ProblemsPage() {
  return <ProblemsView />;
}
