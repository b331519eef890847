// Reads a real /metrics scrape (Prometheus text format) into series a test can look up by name and labels.

export interface Scrape {
  readonly text: string;
  /** The value of the one series with exactly these labels; undefined when absent. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** Sum over every series of `name` whose labels include `labels`. */
  sum(name: string, labels?: Record<string, string>): number;
  /** Metric family names the scrape declares (`# TYPE` lines). */
  readonly families: ReadonlySet<string>;
  /** Every sample name present (histogram `_bucket`/`_sum`/`_count` included). */
  readonly samples: ReadonlySet<string>;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseScrape(text: string): Scrape {
  const samples: Sample[] = [];
  const families = new Set<string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) families.add(line.split(' ')[2]!);
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (match === null) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = value!.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  const includes = (sample: Sample, labels: Record<string, string>) => Object.entries(labels).every(([k, v]) => sample.labels[k] === v);
  return {
    text,
    families,
    samples: new Set(samples.map((s) => s.name)),
    value(name, labels = {}) {
      const found = samples.find((s) => s.name === name && includes(s, labels) && Object.keys(s.labels).length === Object.keys(labels).length);
      return found?.value;
    },
    sum: (name, labels = {}) => samples.filter((s) => s.name === name && includes(s, labels)).reduce((total, s) => total + s.value, 0),
  };
}

export async function scrape(baseUrl: string): Promise<Scrape> {
  const response = await fetch(`${baseUrl}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return parseScrape(await response.text());
}
