import * as yup from 'yup';
import { defineDiscoverySource } from '../../core/kits/discovery/index.js';
import { fileSource, type FileKeys } from './file-source.js';

/**
 * `discovery-file`: instances listed in a YAML or JSON file that configuration management
 * writes (Prometheus file_sd is the model): SBA registrations or `{name, url, metadata}`
 * service entries. Watched, and re-read every `refresh-interval` (5 minutes) as a safety net.
 */
export default defineDiscoverySource<FileKeys>({
  name: 'discovery-file',
  version: '0.1.0',
  refreshInterval: 300_000,
  keys: {
    path: yup.string().trim().required('${path} is required: the file that lists the instances'),
    missing: yup.string().oneOf(['keep', 'empty'] as const, '${path} must be keep or empty').default('keep'),
  },
  create: fileSource,
});
