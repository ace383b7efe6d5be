/**
 * Coverage from the fleet's log of health requests (instance number, time): what share of the N
 * instances had their health requested within each window. Pure functions over the log.
 */

export interface HealthLog {
  readonly ids: readonly number[];
  readonly at: readonly number[];
}

/** Each instance's request times, sorted. */
function timesByInstance(log: HealthLog, instances: number): number[][] {
  const times: number[][] = Array.from({ length: instances }, () => []);
  for (let i = 0; i < log.ids.length; i += 1) times[log.ids[i]!]?.push(log.at[i]!);
  for (const list of times) list.sort((a, b) => a - b);
  return times;
}

/**
 * The smallest share, over every window of `window` ms that starts at `from + k × step` and ends
 * by `to`, of the instances checked at least once inside the window (1 = all of them, always).
 */
export function minimumCoverage(log: HealthLog, instances: number, from: number, to: number, window: number, step: number): { readonly share: number; readonly windows: number; readonly worstStart: number } {
  const starts: number[] = [];
  for (let start = from; start + window <= to; start += step) starts.push(start);
  const covered = new Uint32Array(starts.length);
  for (const list of timesByInstance(log, instances)) {
    // Both lists are sorted: walk them together, finding for each window the first time at or after its start.
    let next = 0;
    for (let w = 0; w < starts.length; w += 1) {
      while (next < list.length && list[next]! < starts[w]!) next += 1;
      if (next < list.length && list[next]! <= starts[w]! + window) covered[w] += 1;
    }
  }
  let worst = 0;
  for (let w = 1; w < starts.length; w += 1) if (covered[w]! < covered[worst]!) worst = w;
  return { share: starts.length > 0 ? covered[worst]! / instances : 0, windows: starts.length, worstStart: starts[worst] ?? from };
}

/** Per consecutive interval from `from`: health requests, and distinct instances requested. */
export function perInterval(log: HealthLog, instances: number, from: number, to: number, interval: number): { readonly requests: number; readonly distinct: number }[] {
  const rows: { requests: number; seen: Uint8Array; distinct: number }[] = [];
  for (let start = from; start + interval <= to; start += interval) rows.push({ requests: 0, seen: new Uint8Array(instances), distinct: 0 });
  for (let i = 0; i < log.ids.length; i += 1) {
    const row = rows[Math.floor((log.at[i]! - from) / interval)];
    if (!row) continue;
    row.requests += 1;
    if (row.seen[log.ids[i]!] === 0) {
      row.seen[log.ids[i]!] = 1;
      row.distinct += 1;
    }
  }
  return rows.map(({ requests, distinct }) => ({ requests, distinct }));
}

/** Time between consecutive checks of one instance, over all instances: a few percentiles (ms). */
export function gapPercentiles(log: HealthLog, instances: number): { readonly count: number; readonly min: number; readonly p1: number; readonly p50: number; readonly p99: number; readonly max: number } {
  const gaps: number[] = [];
  for (const list of timesByInstance(log, instances)) for (let i = 1; i < list.length; i += 1) gaps.push(list[i]! - list[i - 1]!);
  gaps.sort((a, b) => a - b);
  const at = (q: number) => gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))] ?? NaN;
  return { count: gaps.length, min: at(0), p1: at(0.01), p50: at(0.5), p99: at(0.99), max: gaps.at(-1) ?? NaN };
}
