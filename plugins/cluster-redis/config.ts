import { hostname } from 'node:os';
import * as yup from 'yup';
import { duration } from '../../core/plugin-api.js';

const unknownKeys = '${path} has unknown key(s): ${properties}';

/** `host:port`, as Sentinel nodes are written. */
const hostPort = yup.string().trim().required()
  .matches(/^[^\s:/]+:\d{1,5}$|^\[[0-9a-fA-F:.]+\]:\d{1,5}$/, '${path} must be host:port, e.g. 10.0.0.7:26379 (got ${value})');

/**
 * The `cluster-redis` section. Either `url` or `sentinel` says where Redis is; everything else
 * has a default that suits a handful of nodes on one network.
 */
export const clusterRedisSchema = yup.object({
  /** `redis://[:password@]host:port[/db]` or `rediss://...`; the password is best given as `${REDIS_PASSWORD}`. */
  url: yup.string().trim()
    .matches(/^rediss?:\/\/[^\s]+$/, { message: '${path} must be a redis:// or rediss:// URL', excludeEmptyString: true })
    .test('url', '${path} is not a valid URL', (value) => value === undefined || URL.canParse(value)),
  /** A Sentinel-managed Redis: the master's name and some Sentinels to ask for it. */
  sentinel: yup.object({
    'master-name': yup.string().trim().required('${path} is required'),
    nodes: yup.array(hostPort).min(1, '${path} needs at least one Sentinel host:port').required('${path} is required'),
    /** The data nodes' password (the Sentinels' own is `sentinel-password`). */
    password: yup.string().optional(),
    'sentinel-password': yup.string().optional(),
  }).exact(unknownKeys).default(undefined),
  /** Prefix of every key, so several Vigil clusters (or other applications) may share one Redis. */
  'key-prefix': yup.string().trim().min(1).max(100).matches(/^[\x21-\x7e]+$/, '${path} must be printable ASCII without spaces').default('vigil:'),
  /** This node's name in the cluster; default: host name and port. Must be unique among live nodes. */
  'node-id': yup.string().trim().max(200).matches(/^[\x21-\x7e]*$/, '${path} must be printable ASCII without spaces').default(''),
  'heartbeat-interval': duration().min(50).default(2000),
  'heartbeat-ttl': duration().min(100).default(6000),
  /** Longest wait for one Redis command before Redis counts as unreachable. */
  'command-timeout': duration().min(50).default(2000),
  /** How far back the change feed reaches: a node away for longer reloads everything when it returns. */
  'feed-retention': duration().min(1000).default(600_000),
  /**
   * How many of the newest events (of every instance) a node holds besides the whole histories of
   * the instances it checks: streams resume from them; anything older is read from Redis.
   */
  'recent-events': yup.number().integer().min(1).max(10_000_000).default(10_000),
  /**
   * Seals every event and snapshot written to Redis (AES-256-GCM, the key derived with HKDF-SHA256):
   * instance credentials are not readable by whoever reads Redis. Give it as `${ENV}`; the same on
   * every node. Empty: records in clear, with a warning at start.
   */
  'secret-key': yup.string().default('')
    .test('length', '${path} must be at least 16 characters (32 random bytes, e.g. `openssl rand -base64 32`, are best)', (value) => !value || value.length >= 16),
  /** `read-only`: keep serving reads and streams, refuse writes with 503; `exit`: stop the daemon (exit 1) and let the orchestrator restart it. */
  'on-outage': yup.string().oneOf(['read-only', 'exit'] as const).default('read-only'),
})
  .exact(unknownKeys)
  .default({})
  .test('where', 'url or sentinel is required: where Redis is', (value) => value?.url !== undefined || value?.sentinel !== undefined)
  .test('one', 'give url or sentinel, not both', (value) => !(value?.url !== undefined && value?.sentinel !== undefined))
  .test('ttl', 'heartbeat-ttl must be longer than heartbeat-interval (a node would expire between two beats)', (value) =>
    value === undefined || value['heartbeat-ttl'] > value['heartbeat-interval']);

export type ClusterRedisConfig = yup.InferType<typeof clusterRedisSchema>;

/** The node id: the configured one, or host name and port (and the process id when the port is chosen at random). */
export function nodeIdOf(config: ClusterRedisConfig, port: number): string {
  return config['node-id'] || (port === 0 ? `${hostname()}:0:${process.pid}` : `${hostname()}:${port}`);
}
