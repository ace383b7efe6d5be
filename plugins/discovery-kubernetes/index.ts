import * as yup from 'yup';
import { defineDiscoverySource } from '../../core/kits/discovery/index.js';
import { kubernetesSource, type KubernetesKeys } from './kubernetes-source.js';

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';
/** An RFC 1123 label: what a namespace name is. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * `discovery-kubernetes`: the endpoints of Services in the configured namespaces, watched, and
 * listed afresh every `refresh-interval` (5 minutes) as a resync.
 */
export default defineDiscoverySource<KubernetesKeys>({
  name: 'discovery-kubernetes',
  version: '0.1.0',
  refreshInterval: 300_000,
  keys: {
    namespaces: yup.array(yup.string().trim().required().matches(NAMESPACE, '${path} must be a namespace name (lower-case letters, digits and -)'))
      .min(1, '${path} must list at least one namespace').optional().default(undefined),
    'label-selector': yup.string().trim().default(''),
    'api-url': yup.string().trim().optional().matches(/^https?:\/\/[^/\s]+/i, '${path} must be an http(s) URL, e.g. https://kubernetes.default.svc'),
    token: yup.string().trim().optional(),
    'token-file': yup.string().trim().default(`${SERVICE_ACCOUNT}/token`),
    'ca-file': yup.string().trim().default(`${SERVICE_ACCOUNT}/ca.crt`),
    'include-not-ready': yup.boolean().default(true),
    watch: yup.boolean().default(true),
  },
  create: kubernetesSource,
});
