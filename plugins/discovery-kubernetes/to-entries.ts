import type { DiscoveredService } from '../../core/kits/discovery/index.js';
import type { KubeObject } from './resource-watcher.js';

/** The label the EndpointSlice controller puts on every slice: the Service it belongs to. */
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** SBA's KubernetesServiceInstanceConverter: the port named `management` is the management port. */
const MANAGEMENT_PORT = 'management';
/** kubectl's copy of the whole object: large, and no one's metadata. */
const SKIPPED_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

interface SlicePort {
  readonly name?: string;
  readonly port?: number;
  readonly appProtocol?: string;
}

interface Endpoint {
  readonly addresses?: readonly string[];
  readonly conditions?: { readonly ready?: boolean | null };
}

/**
 * Services and their EndpointSlices (one namespace) as instances. A service may have several
 * slices (more than 100 endpoints, or dual-stack): they are joined. Each endpoint is one
 * instance at its first address and the slice's service port: the one named `http`, else
 * `https`, else the first that is not `management`; `https` (by name or appProtocol) gives https.
 * The port named `management`, when there is one, is the management port. Metadata is the
 * Service's labels and annotations. Endpoints that are not ready are kept unless
 * `includeNotReady` is off, so a crash-looping pod shows DOWN instead of disappearing; a missing
 * `ready` means ready, as the API documents.
 */
export function toEntries(services: Iterable<KubeObject>, slices: Iterable<KubeObject>, includeNotReady: boolean): DiscoveredService[] {
  const slicesOf = new Map<string, KubeObject[]>();
  for (const slice of slices) {
    const service = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
    if (!service) continue;
    const list = slicesOf.get(service);
    if (list) list.push(slice);
    else slicesOf.set(service, [slice]);
  }
  const entries: DiscoveredService[] = [];
  for (const service of services) {
    const name = service.metadata?.name;
    if (!name) continue;
    const metadata = metadataOf(service);
    for (const slice of slicesOf.get(name) ?? []) {
      const ports = (slice.ports ?? []) as SlicePort[];
      const servicePort = ports.find((p) => p.name === 'http') ?? ports.find((p) => p.name === 'https')
        ?? ports.find((p) => p.name !== MANAGEMENT_PORT) ?? ports[0];
      if (servicePort?.port === undefined) continue;
      const management = ports.find((p) => p.name === MANAGEMENT_PORT)?.port;
      const scheme = servicePort.name === 'https' || servicePort.appProtocol === 'https' ? 'https' : 'http';
      for (const endpoint of (slice.endpoints ?? []) as Endpoint[]) {
        const address = endpoint.addresses?.[0];
        if (!address) continue;
        if (endpoint.conditions?.ready === false && !includeNotReady) continue;
        entries.push({
          name,
          uri: `${scheme}://${address.includes(':') ? `[${address}]` : address}:${servicePort.port}`,
          metadata,
          ...(management !== undefined ? { managementPort: management } : {}),
        });
      }
    }
  }
  return entries;
}

function metadataOf(service: KubeObject): Record<string, string> {
  const metadata: Record<string, string> = { ...service.metadata?.labels };
  const annotations = (service.metadata as { annotations?: Record<string, string> } | undefined)?.annotations ?? {};
  for (const [key, value] of Object.entries(annotations)) if (!SKIPPED_ANNOTATIONS.has(key)) metadata[key] = value;
  return metadata;
}
