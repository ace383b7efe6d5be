import * as yup from 'yup';
import { defineDiscoverySource, getJson, type DiscoverySource, type SourceContext } from '../../core/kits/discovery/index.js';
import { parseApplications } from './parse-apps.js';

interface EurekaKeys {
  /** Eureka's service URL, as Spring writes it: `http://eureka:8761/eureka` (Netflix's WAR: `.../eureka/v2`). */
  readonly url: string;
  /** Use each instance's `ipAddr` instead of its `hostName`. */
  readonly 'prefer-ip-address': boolean;
}

/**
 * Reads `<url>/apps` with `Accept: application/json` (Eureka answers XML without it). Credentials
 * in the URL (`http://user:pass@eureka:8761/eureka`) are sent as Basic authentication, and
 * shown masked in every message.
 */
function eurekaSource(context: SourceContext<EurekaKeys>): DiscoverySource {
  const url = new URL(`${context.config.url.replace(/\/+$/, '')}/apps`);
  const headers: Record<string, string> = {};
  if (url.username || url.password) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return {
    async list({ signal }) {
      const { json } = await getJson(url.href, { headers, signal });
      return parseApplications(json, context.config['prefer-ip-address']);
    },
  };
}

/** `discovery-eureka`: every instance a Eureka server lists, polled every `refresh-interval` (30 s). */
export default defineDiscoverySource<EurekaKeys>({
  name: 'discovery-eureka',
  version: '0.1.0',
  refreshInterval: 30_000,
  keys: {
    url: yup.string().trim().required('${path} is required: Eureka\'s URL, e.g. http://eureka:8761/eureka')
      .matches(/^https?:\/\/[^/\s]+/i, '${path} must be an http(s) URL, e.g. http://eureka:8761/eureka'),
    'prefer-ip-address': yup.boolean().default(false),
  },
  create: eurekaSource,
});
