/**
 * Reading a /metrics answer as a scraper would (tests): parse-prometheus-text-format (a port of
 * the Prometheus Python client's parser) plus the rules it does not check itself: metric and
 * label names, every family typed and described once, every value a number.
 */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

export interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  readonly samples: readonly { readonly labels: Record<string, string>; readonly value: number }[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['COUNTER', 'GAUGE', 'HISTOGRAM', 'SUMMARY', 'UNTYPED']);

/** A sample value as Prometheus reads it (Go's strconv.ParseFloat: NaN and Inf in any case, an optional sign). */
function number(s: string | undefined, where: string): number {
  if (s === undefined) throw new Error(`${where}: no value`);
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
  if (special) return special[2]?.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  const v = Number(s);
  if (s.trim() === '' || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) || Number.isNaN(v)) throw new Error(`${where}: value ${JSON.stringify(s)} is not a number`);
  return v;
}

/**
 * The families of a text-format exposition, by name. Throws when the parser does, or when a
 * name, a type or a value breaks the format, or a family appears twice. Histograms and
 * summaries are checked for their name, HELP and TYPE only, and carry no samples here: the
 * parser folds the series of a labelled histogram into one (prom-client's
 * `nodejs_gc_duration_seconds{kind}` is one), so their values cannot be read back from it.
 */
export function parseMetrics(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a line feed');
  const out = new Map<string, Family>();
  for (const f of parsePrometheusTextFormat(text)) {
    if (!METRIC_NAME.test(f.name)) throw new Error(`bad metric name ${JSON.stringify(f.name)}`);
    if (out.has(f.name)) throw new Error(`family ${f.name} appears twice`);
    if (!TYPES.has(f.type) || f.type === 'UNTYPED') throw new Error(`${f.name}: no TYPE line`);
    if (!f.help) throw new Error(`${f.name}: no HELP line`);
    const folded = f.type === 'HISTOGRAM' || f.type === 'SUMMARY';
    const samples = (folded ? [] : f.metrics).map((m) => {
      for (const l of Object.keys(m.labels ?? {})) if (!LABEL_NAME.test(l)) throw new Error(`${f.name}: bad label name ${JSON.stringify(l)}`);
      return { labels: { ...(m.labels ?? {}) }, value: number(m.value, f.name) };
    });
    out.set(f.name, { name: f.name, help: f.help, type: f.type as Family['type'], samples });
  }
  return out;
}

/** The value of the sample of `name` whose labels include `labels`; throws unless exactly one matches. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const f = families.get(name);
  if (!f) throw new Error(`no family ${name}`);
  const hits = f.samples.filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (hits.length !== 1 || !hits[0]) throw new Error(`${name} ${JSON.stringify(labels)}: ${hits.length} samples match`);
  return hits[0].value;
}
