import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The notifications part of `npm run screenshots`: receivers for two channels (a webhook that
 * takes everything, a Slack stand-in that answers 500, so the page has a failure to show) and the
 * daemon config that loads them.
 */
export async function startNotifyReceivers(): Promise<{ config: Record<string, unknown>; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(req.url?.startsWith('/slack') ? 500 : 200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    config: {
      plugins: ['rest-api', 'sse', 'proxy', 'monitor', 'detect-index', 'detect-probe', 'ui', 'notify', 'notify-webhook', 'notify-slack'],
      notify: { 'group-window': '0s', delivery: { 'max-attempts': 1 } },
      'notify-webhook': { url: `${base}/hooks/vigil` },
      'notify-slack': { 'webhook-url': `${base}/slack/services/T0/B0/x`, 'rate-limit': 0 },
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A filter or two, as an operator silencing a deploy would leave them. */
export async function addFilters(url: string): Promise<void> {
  await fetch(`${url}/notifications/filters?applicationName=mailer&ttl=3600000`, { method: 'POST' });
  await fetch(`${url}/notifications/filters?applicationName=inventory`, { method: 'POST' });
}
