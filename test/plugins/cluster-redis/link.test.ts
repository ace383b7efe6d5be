import * as assert from 'uvu/assert';
import { StoreUnavailableError, type Logger } from '../../../core/plugin-api.js';
import { clusterRedisSchema } from '../../../plugins/cluster-redis/config.js';
import { RedisLink } from '../../../plugins/cluster-redis/redis-link.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

let redis: RedisProcess | undefined;
let link: RedisLink | undefined;
const lines: string[] = [];
const log: Logger = {
  error: (message) => void lines.push(`error ${message}`),
  warn: (message) => void lines.push(`warn ${message}`),
  info: (message) => void lines.push(`info ${message}`),
  debug: (message) => void lines.push(`debug ${message}`),
  child: () => log,
};

test.after.each(async () => {
  await link?.close();
  link = undefined;
  await redis?.stop();
  redis = undefined;
  lines.length = 0;
});

async function openLink(): Promise<RedisLink> {
  redis = await startRedis(redisServer);
  link = new RedisLink(clusterRedisSchema.cast({ url: redis.url, 'command-timeout': '5s' }), log);
  await link.open(5000);
  return link;
}

test('a command still waiting for a hung Redis when the link makes its connections afresh: StoreUnavailableError in words, not node-redis\'s "Disconnects client"', async () => {
  const open = await openLink();
  redis!.signal('SIGSTOP');
  // Waits up to its own 5 s timeout...
  const waiting = open.run('waiting', (client) => client.get('k')).then(() => undefined, (error: unknown) => error);
  // ...but another command times out first: Redis counts as unreachable, and the link reconnects
  // one pause (1 s) later, which fails the first one's pending reply on the old connection.
  const short = await open.run('short', (client) => client.ping(), 100).then(() => undefined, (error: unknown) => error);
  assert.instance(short, StoreUnavailableError);
  const error = await waiting;
  assert.instance(error, StoreUnavailableError, String(error));
  assert.match((error as Error).message, /^Redis is unreachable \(redis:\/\/127\.0\.0\.1:\d+\/?\): the connection was reset while the command waited for an answer \(it may or may not have been applied\)$/);
  assert.is((error as StoreUnavailableError).retryAfterSeconds, 5);
  redis!.signal('SIGCONT');
  await open.whenUp();
  assert.is(await open.run('after', (client) => client.ping()), 'PONG');
  assert.equal(lines.filter((line) => /Disconnects client|Socket closed unexpectedly|The client is closed/.test(line)), []);
});

test('a killed Redis: commands fail with StoreUnavailableError, and the outage is logged in words', async () => {
  const open = await openLink();
  redis!.signal('SIGKILL');
  const error = await open.run('after the kill', (client) => client.ping()).then(() => undefined, (problem: unknown) => problem);
  assert.instance(error, StoreUnavailableError, String(error));
  assert.match((error as Error).message, /^Redis is unreachable \(redis:\/\/127\.0\.0\.1:\d+\/?\)/);
  const outage = lines.find((line) => line.startsWith('warn Redis is unreachable'));
  assert.ok(outage, lines.join('\n'));
  assert.match(outage, /: the connection to Redis (closed unexpectedly|is closed); serving reads from this node's copy, refusing writes with 503$/, outage);
});

test('a command Redis itself refuses (a wrong type) is its own error: Redis stays reachable', async () => {
  const open = await openLink();
  await open.run('set', (client) => client.set('text', 'x'));
  const error = await open.run('wrong type', (client) => client.lPush('text', 'y')).then(() => undefined, (problem: unknown) => problem);
  assert.not.instance(error, StoreUnavailableError);
  assert.match(String(error), /WRONGTYPE/);
  assert.ok(open.up);
});

test.run();
