/**
 * A parser for the Prometheus text exposition format 0.0.4 (prometheus/docs
 * `exposition_formats.md`), written to the grammar, character by character, for tests: it
 * refuses what Prometheus's own parser refuses (a sample before its TYPE, a second HELP or TYPE,
 * a bad escape, a malformed value, a duplicate series, a histogram whose buckets do not add up)
 * and gives back every sample to assert on. The tests also hand the same text to Prometheus's
 * own parser (`promtool check metrics`) where it is installed.
 */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  readonly name: string;
  type: string;
  /** Whether a TYPE line was seen (a family without one is untyped). */
  typed: boolean;
  help: string | undefined;
  readonly samples: Sample[];
}

const NAME_START = /[a-zA-Z_:]/;
const NAME_CHAR = /[a-zA-Z0-9_:]/;
const LABEL_START = /[a-zA-Z_]/;
const LABEL_CHAR = /[a-zA-Z0-9_]/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parseExposition(text: string): Map<string, Family> {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('the exposition must end with a line feed');
  const families = new Map<string, Family>();
  const series = new Set<string>();
  const familyOf = (sampleName: string): Family | undefined => {
    for (const suffix of ['', '_bucket', '_sum', '_count']) {
      if (!sampleName.endsWith(suffix)) continue;
      const family = families.get(sampleName.slice(0, sampleName.length - suffix.length));
      if (family && (suffix === '' || family.type === 'histogram' || family.type === 'summary')) return family;
    }
    return undefined;
  };
  text.split('\n').slice(0, -1).forEach((line, index) => {
    const where = `line ${index + 1}`;
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const parts = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
      if (!parts) return; // a plain comment
      const [, keyword, name, rest = ''] = parts;
      const family = families.get(name!) ?? { name: name!, type: 'untyped', typed: false, help: undefined, samples: [] };
      families.set(name!, family);
      if (keyword === 'HELP') {
        if (family.help !== undefined) throw new Error(`${where}: a second HELP for ${name}`);
        family.help = unescape(rest, false, where);
      } else {
        if (family.samples.length > 0 || family.typed) throw new Error(`${where}: TYPE of ${name} after its samples or twice`);
        if (!TYPES.has(rest)) throw new Error(`${where}: unknown type "${rest}"`);
        family.type = rest;
        family.typed = true;
      }
      return;
    }
    const sample = parseSample(line, where);
    const family = familyOf(sample.name);
    if (!family) throw new Error(`${where}: sample ${sample.name} has no TYPE before it`);
    const key = `${sample.name}{${Object.entries(sample.labels).sort().map(([k, v]) => `${k}=${v}`).join(',')}}`;
    if (series.has(key)) throw new Error(`${where}: duplicate series ${key}`);
    series.add(key);
    family.samples.push(sample);
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

function parseSample(line: string, where: string): Sample {
  let at = 0;
  const readName = (start: RegExp, rest: RegExp): string => {
    if (!start.test(line[at] ?? '')) throw new Error(`${where}: a name was expected at column ${at + 1}`);
    const from = at;
    while (at < line.length && rest.test(line[at]!)) at += 1;
    return line.slice(from, at);
  };
  const name = readName(NAME_START, NAME_CHAR);
  const labels: Record<string, string> = {};
  if (line[at] === '{') {
    at += 1;
    while (line[at] !== '}') {
      const label = readName(LABEL_START, LABEL_CHAR);
      if (label in labels) throw new Error(`${where}: label ${label} twice`);
      if (line[at] !== '=' || line[at + 1] !== '"') throw new Error(`${where}: ="..." expected after ${label}`);
      at += 2;
      let raw = '';
      while (line[at] !== '"') {
        if (at >= line.length) throw new Error(`${where}: unterminated value of ${label}`);
        if (line[at] === '\\') {
          raw += line.slice(at, at + 2);
          at += 2;
        } else {
          raw += line[at];
          at += 1;
        }
      }
      at += 1;
      labels[label] = unescape(raw, true, where);
      if (line[at] === ',') at += 1;
      else if (line[at] !== '}') throw new Error(`${where}: , or } expected at column ${at + 1}`);
    }
    at += 1;
  }
  const fields = line.slice(at).trim().split(/\s+/);
  if (line[at] !== ' ' || fields.length < 1 || fields.length > 2) throw new Error(`${where}: a value (and maybe a timestamp) expected`);
  const value = number(fields[0]!, where);
  if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])) throw new Error(`${where}: bad timestamp ${fields[1]}`);
  return { name, labels, value };
}

/** As Prometheus reads a value (Go's ParseFloat): special values in any case (prom-client writes `Nan`). */
function number(text: string, where: string): number {
  const special = text.toLowerCase();
  if (special === '+inf' || special === 'inf' || special === '+infinity' || special === 'infinity') return Infinity;
  if (special === '-inf' || special === '-infinity') return -Infinity;
  if (special === 'nan') return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`${where}: bad value ${text}`);
  return Number(text);
}

/** `\\` and `\n` everywhere, `\"` in label values only; any other escape is an error. */
function unescape(raw: string, quoted: boolean, where: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i += 1) {
    if (raw[i] !== '\\') {
      out += raw[i];
      continue;
    }
    const next = raw[i + 1];
    if (next === '\\') out += '\\';
    else if (next === 'n') out += '\n';
    else if (next === '"' && quoted) out += '"';
    else throw new Error(`${where}: bad escape \\${next ?? ''}`);
    i += 1;
  }
  return out;
}

/** Per series: `le` bounds increase, counts never decrease, `+Inf` equals `_count`, `_sum` exists. */
function checkHistogram(family: Family): void {
  const bySeries = new Map<string, Sample[]>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    void le;
    const key = JSON.stringify(Object.entries(rest).sort());
    bySeries.set(key, [...(bySeries.get(key) ?? []), sample]);
  }
  for (const [key, samples] of bySeries) {
    const buckets = samples.filter((s) => s.name === `${family.name}_bucket`);
    const count = samples.find((s) => s.name === `${family.name}_count`);
    if (!count || !samples.some((s) => s.name === `${family.name}_sum`)) throw new Error(`${family.name} ${key}: _sum and _count are required`);
    const bounds = buckets.map((b) => number(b.labels.le ?? '', family.name));
    if (bounds[bounds.length - 1] !== Infinity) throw new Error(`${family.name} ${key}: the last bucket must be +Inf`);
    for (let i = 1; i < buckets.length; i += 1) {
      if (!(bounds[i]! > bounds[i - 1]!) || buckets[i]!.value < buckets[i - 1]!.value) throw new Error(`${family.name} ${key}: buckets out of order`);
    }
    if (buckets[buckets.length - 1]!.value !== count.value) throw new Error(`${family.name} ${key}: +Inf bucket differs from _count`);
  }
}

/** The value of the one sample called `name` whose labels include `labels`; undefined when none. */
export function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const family of families.values()) {
    const sample = family.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    if (sample) return sample.value;
  }
  return undefined;
}
