import * as yup from 'yup';
import { defineDiscoverySource } from '../../core/kits/discovery/index.js';
import { duration } from '../../core/plugin-api.js';
import { consulSource, type ConsulKeys } from './consul-source.js';

/**
 * `discovery-consul`: every instance of the services in Consul's catalog, watched with
 * blocking queries and read afresh every `refresh-interval` (5 minutes) as a safety net.
 */
export default defineDiscoverySource<ConsulKeys>({
  name: 'discovery-consul',
  version: '0.1.0',
  refreshInterval: 300_000,
  keys: {
    url: yup.string().trim().default('http://127.0.0.1:8500')
      .matches(/^https?:\/\/[^/\s]+/i, '${path} must be an http(s) URL, e.g. http://consul:8500'),
    token: yup.string().trim().optional(),
    wait: duration().min(1000, '${path} must be at least 1s').max(600_000, '${path} must be at most 10m (Consul\'s cap)').default(300_000),
    datacenter: yup.string().trim().optional(),
  },
  create: consulSource,
});
