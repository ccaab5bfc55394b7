/** Types of the dev dependency parse-prometheus-text-format (it ships none); see test/support/prometheus.ts. */
declare module 'parse-prometheus-text-format' {
  interface ParsedSample {
    readonly value?: string;
    readonly labels?: Record<string, string>;
    readonly timestamp_ms?: string;
    readonly buckets?: Record<string, string>;
    readonly quantiles?: Record<string, string>;
    readonly count?: string;
    readonly sum?: string;
  }
  interface ParsedFamily {
    readonly name: string;
    readonly help: string;
    readonly type: string;
    readonly metrics: readonly ParsedSample[];
  }
  /** Parses Prometheus text format; throws on a line it cannot read. */
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
