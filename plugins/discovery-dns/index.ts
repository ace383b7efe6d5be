import { isIP } from 'node:net';
import * as yup from 'yup';
import { defineDiscoverySource, metadataMap } from '../../core/kits/discovery/index.js';
import { dnsSource, type DnsKeys } from './dns-source.js';

/** `1.2.3.4`, `1.2.3.4:53`, `::1` or `[::1]:53`: what `Resolver.setServers` takes (addresses, not names). */
function isServer(value: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value);
  if (bracketed) return isIP(bracketed[1]!) === 6 && (bracketed[2] === undefined || Number(bracketed[2]) <= 65535);
  if (isIP(value) !== 0) return true;
  const withPort = /^([^:]+):(\d{1,5})$/.exec(value);
  return withPort !== null && isIP(withPort[1]!) === 4 && Number(withPort[2]) <= 65535;
}

const record = yup.object({
  name: yup.string().trim().required('${path} is required: the application name its instances get'),
  srv: yup.string().trim().required('${path} is required: the SRV name, e.g. _http._tcp.orders.example'),
  scheme: yup.string().oneOf(['http', 'https'] as const, '${path} must be http or https').default('http'),
  metadata: metadataMap(),
}).exact('unknown key(s): ${properties}').typeError('${path} must be a mapping with name, srv, scheme and metadata');

/**
 * `discovery-dns`: instances from DNS SRV records (Consul DNS, CoreDNS headless services, a
 * zone of your own), read every `refresh-interval` (30 s) from the system resolver or `servers`.
 */
export default defineDiscoverySource<DnsKeys>({
  name: 'discovery-dns',
  version: '0.1.0',
  refreshInterval: 30_000,
  keys: {
    records: yup.array(record).min(1, '${path} must list at least one record').required('${path} is required: the SRV records to read'),
    servers: yup.array(yup.string().trim().required().test('server', '${path} must be an IP address with an optional port (1.2.3.4:53, [::1]:53), got ${value}', (value) => isServer(value ?? '')))
      .default([]),
    'resolve-targets': yup.boolean().default(false),
  },
  create: dnsSource,
});
