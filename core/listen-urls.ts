import { hostname } from 'node:os';

const WILDCARDS_V4 = new Set(['0.0.0.0']);
const WILDCARDS_V6 = new Set(['::', '[::]', '::0', '0:0:0:0:0:0:0:0']);

/**
 * URLs a person can open when Vigil listens on every address (`http://0.0.0.0:8080` opens
 * nowhere): this machine's host name, and the loopback address of the same family. None for a
 * specific address, whose own URL is the one to open.
 */
export function openableUrls(host: string, port: number, contextPath: string, name: string = hostname()): string[] {
  const loopback = WILDCARDS_V4.has(host) ? '127.0.0.1' : WILDCARDS_V6.has(host) ? '[::1]' : undefined;
  if (!loopback) return [];
  return [`http://${name}:${port}${contextPath}`, `http://${loopback}:${port}${contextPath}`];
}

/** `listening on <url>`, and where a wildcard address is bound, what to open instead. */
export function listeningLine(url: string, host: string, port: number, contextPath: string): string {
  const openable = openableUrls(host, port, contextPath);
  return openable.length === 0 ? `listening on ${url}` : `listening on ${url} (every address: open ${openable.join(' or ')})`;
}
