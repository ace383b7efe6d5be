import { KNOWN_STATUSES, severity } from 'vigil/domain';

/** Worst first: a custom status ranks before DOWN (severity -1), as the server orders them. */
export const compareStatus = (a: string, b: string): number => severity(a) - severity(b);

export type StatusCounts = ReadonlyArray<readonly [status: string, count: number]>;

/** How many of `statuses` there are of each, worst first. */
export function countStatuses(statuses: Iterable<string>): StatusCounts {
  const counts = new Map<string, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => compareStatus(a, b) || (a < b ? -1 : 1));
}

/** The statuses the filter offers even when none is present, worst first. */
export const FILTER_STATUSES: readonly string[] = KNOWN_STATUSES;
