import { compareBuildVersions } from './build-version.js';
import { severity } from './status.js';
import type { Application, Instance } from './types.js';

const EPOCH = new Date(0).toISOString();

/**
 * Groups registered instances of one name into an Application (reference §1.6, §3.1):
 * one shared status is kept; mixed statuses with an UP give RESTRICTED; otherwise the most severe.
 */
export function toApplication(name: string, instances: readonly Instance[]): Application {
  const { status, statusTimestamp } = aggregateStatus(instances);
  return { name, buildVersion: buildVersionRange(instances), status, statusTimestamp, instances };
}

function aggregateStatus(instances: readonly Instance[]): { status: string; statusTimestamp: string } {
  if (instances.length === 0) return { status: 'UNKNOWN', statusTimestamp: EPOCH };
  const latest = new Map<string, string>();
  for (const instance of instances) {
    const { status } = instance.statusInfo;
    const seen = latest.get(status);
    if (seen === undefined || instance.statusTimestamp > seen) latest.set(status, instance.statusTimestamp);
  }
  if (latest.size === 1) {
    const [[status, statusTimestamp]] = latest;
    return { status, statusTimestamp };
  }
  const up = latest.get('UP');
  if (up !== undefined) {
    const others = [...latest].filter(([status]) => status !== 'UP').map(([, timestamp]) => timestamp);
    const earliestOther = others.reduce((a, b) => (a < b ? a : b));
    return { status: 'RESTRICTED', statusTimestamp: earliestOther > up ? earliestOther : up };
  }
  const [worst] = [...latest].sort(([a], [b]) => severity(a) - severity(b));
  return { status: worst![0], statusTimestamp: worst![1] };
}

function buildVersionRange(instances: readonly Instance[]): string | null {
  const versions = [...new Set(instances.map((i) => i.buildVersion).filter((v): v is string => v !== null))];
  if (versions.length === 0) return null;
  versions.sort(compareBuildVersions);
  return versions.length === 1 ? versions[0]! : `${versions[0]} ... ${versions.at(-1)}`;
}
