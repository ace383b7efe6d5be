import type { HttpEdge, Logger, ServerSettings } from '../../plugin-api.js';
import { AllowedHosts } from './allowed-hosts.js';
import { ConnectionLimits, connectionsCheckingInterval, type ConnectionLimitSettings } from './connection-limits.js';
import { crossSiteRefusal } from './cross-site.js';
import { openFileLimit, openFileWarning } from './open-file-limit.js';

/**
 * The guards of the kernel's HTTP server from the `server` section. Besides the configured
 * `allowed-hosts`, the name or address the daemon listens on (`listenHost`) is always answered,
 * and so is what plugins contribute (`contributedHosts`, asked on each miss). `log` is the
 * kernel's: the open-file warning goes there, refused connections under `http`.
 */
export function httpEdge(settings: ServerSettings, listenHost: string, contributedHosts: () => readonly string[], log: Logger): HttpEdge {
  const hosts = new AllowedHosts({ configured: settings['allowed-hosts'], listenHost, contributed: contributedHosts });
  let limits: ConnectionLimits | undefined;
  return {
    serverOptions: {
      headersTimeout: settings['headers-timeout'],
      connectionsCheckingInterval: connectionsCheckingInterval(settings['headers-timeout']),
    },
    guard: (server) => {
      limits = new ConnectionLimits(server, limitsOf(settings), log.child('http'));
      const fdWarning = openFileWarning(settings['max-connections'], openFileLimit());
      if (fdWarning) log.warn(fdWarning);
    },
    hostRefusal: (header) => hosts.refusal(header),
    crossSiteRefusal,
    reload: (next) => {
      limits?.apply(limitsOf(next));
      hosts.configure(next['allowed-hosts']);
    },
  };
}

function limitsOf(server: ServerSettings): ConnectionLimitSettings {
  return {
    maxConnections: server['max-connections'],
    perAddress: server['max-connections-per-address'],
    exempt: server['per-address-exempt'],
    headersTimeoutMs: server['headers-timeout'],
  };
}
