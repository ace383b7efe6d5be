import { discoveryScenarios, type PeerInstance } from '../../support/discovery-scenarios.js';
import { DnsResponder } from './dns-responder.js';

const NAMES = ['orders', 'billing', 'ignored-batch'];
const srvOf = (name: string) => `_http._tcp.${name}.vigil.test`;

/** The zone for `instances`: one SRV record set per service, its metadata as TXT strings. */
function load(responder: DnsResponder, instances: readonly PeerInstance[]): void {
  responder.zone.clear();
  for (const name of NAMES) {
    const members = instances.filter((instance) => instance.name === name);
    if (members.length === 0) continue;
    const txt = Object.entries(members[0]!.metadata ?? {}).map(([key, value]) => `${key}=${value}`);
    responder.set(srvOf(name), [
      ...members.map((instance) => ({ type: 'SRV' as const, data: { target: instance.host, port: instance.port } })),
      // A TXT record holds at least one string: no metadata, no record.
      ...(txt.length > 0 ? [{ type: 'TXT' as const, data: txt }] : []),
    ]);
  }
}

// A real DNS server on loopback UDP, read through Node's resolver.
discoveryScenarios({
  plugin: 'discovery-dns',
  watches: false,
  line: (i) => `${i.name} http://${i.host}:${i.port}/actuator/health`,
  async start(instances) {
    const responder = await DnsResponder.start();
    load(responder, instances);
    return {
      config: { servers: [responder.server], records: NAMES.map((name) => ({ name, srv: srvOf(name) })), timeout: '2s' },
      peer: {
        async set(next) {
          load(responder, next);
        },
        async fail(failing) {
          responder.mode = failing ? 'SERVFAIL' : 'zone';
        },
        close: () => responder.close(),
      },
    };
  },
});
