/**
 * What a caller of the simulated fleet (fleet.ts) gives it and hears from it: its options
 * (durations, caps, seed) and the events it reports after each write.
 */

/** Options of {@link startFleet}. Durations are ms; all decisions use this machine's clock. */
export interface FleetOptions {
  /** `stale_after` the board uses (default 300 000); workers heartbeat every `staleAfterMs / 10`. */
  readonly staleAfterMs?: number;
  /** Time between ticks (default `heartbeat / 5`, clamped to 50..1000). */
  readonly tickMs?: number;
  /** Seed of the fleet's random choices (default 1): same seed, same choices for the same folder. */
  readonly seed?: number;
  /** Clock skew per identity, ms (writer clock minus this machine's); overrides the manifest's. */
  readonly clockOffsets?: Readonly<Record<string, number>>;
  /** The fleet issues no order once the channel holds this many (default 80). */
  readonly maxOrders?: number;
  /** At maxOrders, archive the finished order longest untouched (into `<dir>.archive/`) before issuing a new one (default false: stop issuing). */
  readonly archiveAtBound?: boolean;
  /** Runs the fleet itself lets die over its life (default 2); the manifest's abandoned runs are extra. */
  readonly maxDeaths?: number;
  /** The share of runs a worker that may die lets die, until maxDeaths (default 0.25; a test that waits for a death raises it). */
  readonly dieChance?: number;
  /** Give-ups the fleet itself writes over its life besides the manifest's (default 1). */
  readonly maxGiveups?: number;
  /** Steers ops writes over the fleet's life on orders still in the queue (default 2). */
  readonly maxSteers?: number;
  /** At least this long between two deaths, two give-ups or two steers the fleet writes, ms (default 0: only the caps above). */
  readonly paceMs?: number;
  /** ops acknowledges a give-up left in Needs attention this long, ms (default: never). */
  readonly ackAfterMs?: number;
  /** A worker that died starts again after this many ms (default between 1.5 and 3 x staleAfterMs). */
  readonly restartAfterMs?: number;
  /** Called with every error a tick meets (the tick is skipped, the fleet goes on); default: one line on stderr. */
  readonly onError?: (error: unknown) => void;
  /** Called after each write, for logs and tests. */
  readonly onEvent?: (event: FleetEvent) => void;
  /**
   * Each run gets a real child process whose pid its heartbeats carry, killed when the run dies
   * or ends (lib/demo/engines.ts; `serve`'s demo, whose agents are local). Default false: a pid
   * made up from the seed.
   */
  readonly realProcesses?: boolean;
}

/** One thing the fleet did. */
export interface FleetEvent {
  readonly kind:
    | 'issue'
    | 'claim'
    | 'adopt'
    | 'heartbeat'
    | 'result'
    | 'review'
    | 'giveup'
    | 'die'
    /** A worker started again; `detail` lists what its start released (`<order> (<reason>)`). */
    | 'restart'
    /** A run's start acknowledged interrupts; `detail`: `kill`/`pause` (the run stopped) or `steer`. */
    | 'interrupt'
    /** ops steered an order still in the queue. */
    | 'steer'
    /** At the bound: a finished order moved out of the channel into `<dir>.archive/`. */
    | 'archive'
    /** ops acknowledged a give-up that waited ackAfterMs. */
    | 'ack';
  readonly agent: string;
  readonly order_id: string;
  readonly detail?: string;
}
