import { readFileSync } from 'node:fs';

/**
 * The process's open-file limit (the soft one, which is what `EMFILE` is about), from Linux's
 * `/proc/self/limits`; undefined elsewhere or when it cannot be read. Node raises the soft limit
 * to the hard one at start, so this is what the daemon really has.
 */
export function openFileLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | undefined {
  let text: string;
  try {
    text = read();
  } catch {
    return undefined;
  }
  const match = /^Max open files\s+(\S+)/m.exec(text);
  if (!match || match[1] === 'unlimited') return undefined;
  const limit = Number(match[1]);
  return Number.isInteger(limit) && limit > 0 ? limit : undefined;
}

/**
 * A warning when clients alone could take most of the file descriptors: then calls to instances,
 * notification deliveries and log files fail with `EMFILE` under a connection flood, which
 * `server.max-connections` exists to prevent. Three quarters of the limit is the line.
 */
export function openFileWarning(maxConnections: number, limit: number | undefined): string | undefined {
  if (limit === undefined || maxConnections <= limit * 0.75) return undefined;
  return `server.max-connections (${maxConnections}) leaves too few of the ${limit} open files this process may have`
    + ` for calls to instances and notification deliveries: lower it, or raise the limit (LimitNOFILE in the systemd unit, ulimit -n)`;
}
