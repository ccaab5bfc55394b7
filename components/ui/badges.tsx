import type { AttentionFlag, Lane, OrderState } from '@/lib/ledger/derive';
import { FLAG_LABEL, LANE_TITLE, LANE_TONE, STATE_LABEL, STATE_TONE, type Tone } from '@/lib/ui/labels';
import { BADGE_TONE } from './tone';

const base = 'inline-flex items-center rounded px-1.5 py-px text-xs font-medium ring-1 ring-inset whitespace-nowrap';

export function Badge({ tone, children, title }: { tone: Tone; children: React.ReactNode; title?: string }) {
  return (
    <span className={`${base} ${BADGE_TONE[tone]}`} title={title}>
      {children}
    </span>
  );
}

export function StateBadge({ state }: { state: OrderState }) {
  return (
    <Badge tone={STATE_TONE[state]} title={`state: ${state}`}>
      {STATE_LABEL[state]}
    </Badge>
  );
}

export function FlagBadge({ flag }: { flag: AttentionFlag }) {
  return (
    <span
      className={`${base} bg-white text-red-800 ring-red-300 dark:bg-transparent dark:text-red-300 dark:ring-red-800`}
      title={`attention flag: ${flag}`}
      data-flag={flag}
    >
      {FLAG_LABEL[flag]}
    </span>
  );
}

export function LaneBadge({ lane }: { lane: Lane }) {
  return (
    <Badge tone={LANE_TONE[lane]} title={`lane: ${lane}`}>
      {LANE_TITLE[lane]}
    </Badge>
  );
}
