import type { Metadata } from 'next';
import { AgentsTable } from '@/components/agent/AgentsTable';

export const metadata: Metadata = { title: 'Agents' };

export default function AgentsPage() {
  return <AgentsTable />;
}
