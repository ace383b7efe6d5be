import { actuatorPath, getJson } from '../../../api';

interface MetricBody {
  readonly measurements?: readonly { statistic: string; value: number }[];
  readonly availableTags?: readonly { tag: string; values: readonly string[] }[];
}

/** A metric's measurements by statistic (`VALUE`, `COUNT`, `TOTAL_TIME`, `MAX`), and the tag values it offers. */
export interface Reading {
  readonly values: Readonly<Record<string, number>>;
  readonly tags: Readonly<Record<string, readonly string[]>>;
}

/**
 * Reads metrics through the proxy, narrowed by tags as Boot's endpoint takes them
 * (`?tag=area:heap&tag=id:Metaspace`). A metric the instance does not have reads as undefined.
 */
export class MetricReader {
  constructor(private readonly id: string, private readonly names: ReadonlySet<string>, private readonly signal: AbortSignal) {}

  has(name: string): boolean {
    return this.names.has(name);
  }

  async read(name: string, tags: Readonly<Record<string, string>> = {}): Promise<Reading | undefined> {
    if (!this.names.has(name)) return undefined;
    const query = Object.entries(tags).map(([key, value]) => `tag=${encodeURIComponent(`${key}:${value}`)}`).join('&');
    try {
      const body = await getJson<MetricBody>(actuatorPath(this.id, `metrics/${encodeURIComponent(name)}${query ? `?${query}` : ''}`), this.signal);
      const values: Record<string, number> = {};
      for (const { statistic, value } of body.measurements ?? []) values[statistic] = value;
      const available: Record<string, readonly string[]> = {};
      for (const { tag, values: offered } of body.availableTags ?? []) available[tag] = offered;
      return { values, tags: available };
    } catch {
      // A tag value that went away (a pool, a cache) answers 404: that metric is simply absent now.
      return undefined;
    }
  }

  async value(name: string, tags?: Readonly<Record<string, string>>, statistic = 'VALUE'): Promise<number | undefined> {
    return (await this.read(name, tags))?.values[statistic];
  }
}

/** Uptime in the largest units that say it: `3 d 4 h`, `2 h 5 min`, `42 s`. */
export function formatUptime(seconds: number): string {
  const s = Math.floor(seconds);
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s % 60} s`;
  return `${s} s`;
}
