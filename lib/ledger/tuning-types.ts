/**
 * The shapes of the stale-threshold tuning report: the distributions that
 * say whether the channel's stale threshold fits what its fleet really does. Pure types; the
 * rule and the histogram math live in `tuning.ts`, the reading in `lib/index/read/tuning-queries.ts`.
 *
 * Clocks: a heartbeat gap is the time between two successive arrivals of one run's heartbeat
 * on this machine (ctime, the clock staleness is measured on). A run's duration is from its
 * claim's `claimed_at` to its result's `at`, both written by the holder: one machine's clock,
 * so they may be compared (the brief's one exception), and they survive a rebuilt index.
 */
import type { Lane } from './derive';

/** One bucket of a log-scaled histogram: `[lo_ms, hi_ms)`, `n` samples. */
export interface HistogramBucket {
  readonly lo_ms: number;
  readonly hi_ms: number;
  readonly n: number;
}

/** A distribution of durations (ms). Percentiles are null when `count` is 0. */
export interface Distribution {
  readonly count: number;
  readonly p50_ms: number | null;
  readonly p90_ms: number | null;
  readonly p99_ms: number | null;
  readonly max_ms: number | null;
  /** Non-empty buckets only, ascending. */
  readonly histogram: readonly HistogramBucket[];
}

/** A run that a threshold would have shown as stale at least once: its longest heartbeat gap exceeded it. */
export interface FlaggedRun {
  readonly order_id: string;
  readonly agent: string;
  readonly run: string;
  readonly max_gap_ms: number;
}

/** What a threshold would have flagged among the runs observed. */
export interface WouldFlag {
  readonly threshold_ms: number;
  /** Runs whose longest observed gap exceeded the threshold. */
  readonly runs: number;
  /** Of the runs with at least one observed gap. */
  readonly of_runs: number;
  /** Up to 20, longest gap first. */
  readonly examples: readonly FlaggedRun[];
}

/** The suggested threshold and the rule that gave it (docs/tuning.md states the rule). */
export interface Suggestion {
  /** The rule in words, with its figures filled in. */
  readonly rule: string;
  /** Null when there is not enough data; `not_enough` then says why in words. */
  readonly suggested_ms: number | null;
  readonly not_enough: string | null;
}

/** Time in lane and the oldest card of one lane (this machine's clock). */
export interface LaneAge {
  readonly lane: Lane;
  readonly count: number;
  readonly oldest: { readonly order_id: string; readonly age_ms: number } | null;
  readonly time_in_lane: Distribution;
}

/** `GET /api/tuning[?agent=<name>]`: the whole report, for the channel or one agent. */
export interface TuningReport {
  readonly channel: string;
  readonly agent: string | null;
  /** The stale threshold in force (ms). */
  readonly stale_after_ms: number;
  /** This machine's clock when the report was made (ms since the epoch). */
  readonly now_ms: number;
  /** Heartbeat gaps observed live by this process's index (not derivable from the folder). */
  readonly gaps: Distribution & {
    /** Gaps longer than stale_after_ms, and their share of all gaps (0..1; null when none). */
    readonly beyond_threshold: number;
    readonly share_beyond: number | null;
    /** When this index began observing gaps (ms, this machine's clock); null before the first. */
    readonly observed_since_ms: number | null;
  };
  /** Run durations, claim to result, on the holder's own clock. */
  readonly runs: Distribution;
  readonly suggestion: Suggestion;
  readonly would_flag: { readonly current: WouldFlag; readonly suggested: WouldFlag | null };
  /**
   * The cards in the board's Stale lane now (the board's "N stale"), of the channel or held by
   * the agent: `stopped` have a heartbeat whose gap is still
   * open (a gap counts above only once the next heartbeat arrives), `no_heartbeat` never had one.
   */
  readonly stale_now: { readonly total: number; readonly stopped: number; readonly no_heartbeat: number };
  /** Every lane, in LANES order (channel report only; empty for an agent). */
  readonly lanes: readonly LaneAge[];
}
