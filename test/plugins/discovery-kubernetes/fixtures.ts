import { isDeepStrictEqual } from 'node:util';
import type { PeerInstance } from '../../support/discovery-scenarios.js';
import type { FakeKubeApi, KubeObject } from './fake-kube-api.js';

// Objects shaped as `kubectl get services,endpointslices -o json` prints them (Kubernetes 1.33).

export const NAMESPACE = 'shop';
export const SELECTOR = 'vigil.io/monitor=true';

export interface Port {
  readonly name: string;
  readonly port: number;
  readonly appProtocol?: string;
}

export function service(name: string, options: { labels?: Record<string, string>; annotations?: Record<string, string>; ports?: Port[] } = {}): KubeObject {
  const ports = options.ports ?? [{ name: 'http', port: 8080 }];
  return {
    metadata: {
      name,
      uid: `uid-svc-${name}`,
      creationTimestamp: '2026-11-20T10:00:00Z',
      labels: { app: name, 'vigil.io/monitor': 'true', ...options.labels },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"v1","kind":"Service"}\n', ...options.annotations },
    },
    spec: {
      ports: ports.map((port) => ({ name: port.name, protocol: 'TCP', port: port.port === 8080 ? 80 : port.port, targetPort: port.port })),
      selector: { app: name },
      clusterIP: '10.96.0.10',
      clusterIPs: ['10.96.0.10'],
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
    },
    status: { loadBalancer: {} },
  } as KubeObject;
}

export interface EndpointSpec {
  readonly address: string;
  readonly ready?: boolean | null;
  readonly pod?: string;
}

export function slice(name: string, serviceName: string, endpoints: readonly EndpointSpec[], ports: readonly Port[] = [{ name: 'http', port: 8080 }], addressType = 'IPv4'): KubeObject {
  return {
    metadata: {
      name,
      generateName: `${serviceName}-`,
      uid: `uid-slice-${name}`,
      creationTimestamp: '2026-11-20T10:00:01Z',
      labels: { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io', 'kubernetes.io/service-name': serviceName },
      annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': '2026-11-20T10:00:01Z' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: serviceName, uid: `uid-svc-${serviceName}`, controller: true, blockOwnerDeletion: true }],
    },
    addressType,
    endpoints: endpoints.map((endpoint, index) => ({
      addresses: [endpoint.address],
      conditions: endpoint.ready === null ? {} : { ready: endpoint.ready ?? true, serving: endpoint.ready ?? true, terminating: false },
      nodeName: `node-${index % 3}`,
      targetRef: { kind: 'Pod', namespace: NAMESPACE, name: endpoint.pod ?? `${serviceName}-7d9f${index}`, uid: `uid-pod-${serviceName}-${index}` },
      zone: 'eu-1a',
    })),
    ports: ports.map((port) => ({ name: port.name, protocol: 'TCP', port: port.port, ...(port.appProtocol ? { appProtocol: port.appProtocol } : {}) })),
  } as KubeObject;
}

/** Makes the fake hold, in NAMESPACE, a Service per name and a slice per (name, port) for `instances`; only what differs is written. */
export function applyInstances(fake: FakeKubeApi, instances: readonly PeerInstance[], options: { quiet?: boolean } = {}): void {
  const services = new Map<string, KubeObject>();
  const slices = new Map<string, KubeObject>();
  for (const name of new Set(instances.map((instance) => instance.name))) {
    const members = instances.filter((instance) => instance.name === name);
    services.set(name, service(name, { annotations: { ...members[0]!.metadata } }));
    for (const port of new Set(members.map((member) => member.port))) {
      const sliceName = `${name}-p${port}`;
      slices.set(sliceName, slice(sliceName, name, members.filter((member) => member.port === port).map((member) => ({ address: member.host })), [{ name: 'http', port }]));
    }
  }
  sync(fake, 'services', services, options);
  sync(fake, 'endpointslices', slices, options);
}

function sync(fake: FakeKubeApi, kind: 'services' | 'endpointslices', wanted: Map<string, KubeObject>, options: { quiet?: boolean }): void {
  for (const existing of fake.objects(kind, NAMESPACE)) if (!wanted.has(existing.metadata.name)) fake.delete(kind, NAMESPACE, existing.metadata.name);
  for (const [name, object] of wanted) {
    const existing = fake.objects(kind, NAMESPACE).find((item) => item.metadata.name === name);
    const { resourceVersion: _rv, namespace: _ns, ...metadata } = existing?.metadata ?? {};
    if (!existing || !isDeepStrictEqual({ ...existing, metadata }, object)) fake.apply(kind, NAMESPACE, object, options);
  }
}
