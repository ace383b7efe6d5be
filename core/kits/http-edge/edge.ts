import type { HttpEdge, Logger, PluginContext, ServerSettings } from '../../plugin-api.js';
import { AllowedHosts } from './allowed-hosts.js';
import { ConnectionLimits, connectionsCheckingInterval, type ConnectionLimitSettings } from './connection-limits.js';
import { crossSiteRefusal } from './cross-site.js';
import { openFileLimit, openFileWarning } from './open-file-limit.js';
import { answerProtocolErrors } from './protocol-errors.js';

/** What the edge needs of the kernel besides the `server` section. */
export interface HttpEdgeContext {
  /** The name or address the daemon listens on (`host`): always an allowed host. */
  readonly listenHost: string;
  /** What plugins contribute to `allowed-hosts` (`ALLOWED_HOSTS`), asked on each miss. */
  readonly contributedHosts: () => readonly string[];
  /** The kernel's routes, whose JSON error answers an `Expect` it does not support. */
  readonly http: Pick<PluginContext['http'], 'sendError'>;
  /** The kernel's logger: the open-file warning goes there, refused connections under `http`. */
  readonly log: Logger;
}

/** The guards of the kernel's HTTP server from the `server` section. */
export function httpEdge(settings: ServerSettings, { listenHost, contributedHosts, http, log }: HttpEdgeContext): HttpEdge {
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
      answerProtocolErrors(server, http);
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
