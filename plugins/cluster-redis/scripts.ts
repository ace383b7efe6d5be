import { createHash } from 'node:crypto';
import type { Client } from './redis-link.js';

/**
 * A Lua script: sent by its SHA-1 (EVALSHA), and in full once when Redis does not know it (a
 * restarted or failed-over Redis forgets loaded scripts). Scripts run atomically: every check
 * and write of one append happens with no other command in between, on every node's behalf.
 */
export class Script {
  readonly sha: string;

  constructor(readonly name: string, readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run<T>(client: Client, keys: readonly string[], args: readonly (string | number)[]): Promise<T> {
    const tail = [String(keys.length), ...keys, ...args.map(String)];
    try {
      return await client.sendCommand<T>(['EVALSHA', this.sha, ...tail]);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.sendCommand<T>(['EVAL', this.source, ...tail]);
    }
  }
}

/** Milliseconds on Redis's clock, so that no node's clock matters. */
const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** A write of a history other than the one the node loaded is refused: the node reloads first. */
const CHECK_INCARNATION = (metaKey: string, arg: string) => `
local inc = redis.call('HGET', ${metaKey}, 'incarnation')
if inc ~= ${arg} then return redis.error_reply('INCARNATION ' .. (inc or 'none')) end`;

/**
 * Opens or starts the history: a new incarnation (random id, seqs from `base`) when Redis holds
 * none, which happens on first use and after Redis lost its data.
 * KEYS: meta, seq. ARGV: candidate incarnation, candidate base. Returns {incarnation, base, seq}.
 */
export const INIT = new Script('init', `
if redis.call('HSETNX', KEYS[1], 'incarnation', ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], 'base', ARGV[2])
  redis.call('SET', KEYS[2], tonumber(ARGV[2]) - 1)
end
return {redis.call('HGET', KEYS[1], 'incarnation'), redis.call('HGET', KEYS[1], 'base'), redis.call('GET', KEYS[2])}
`);

/** Takes every event of one instance's history (`stream`, of instance `id`) out of the event index. */
const UNINDEX_HISTORY = (index: string, stream: string, id: string) => `
for _, entry in ipairs(redis.call('XRANGE', ${stream}, '-', '+')) do redis.call('ZREM', ${index}, entry[1] .. ' ' .. ${id}) end`;

/** Most deregistered histories one append drops, so one script never blocks Redis for long. */
export const TRIM_BATCH = 100;

/**
 * One event: the version check (a stale writer loses), the next seq, the event in the
 * instance's history and in the feed, the snapshot, retention bookkeeping, the outbox item when
 * someone consumes it, and the kernel's compaction rule (compactHistory in core/store): the
 * newest of each kind spared first, the cap hard. A DEREGISTERED beyond the cap on deregistered
 * instances drops those deregistered longest ago (lowest seq) as DROP does, each announced on the
 * feed after the event; a backlog (the cap lowered over a fuller Redis) goes `TRIM_BATCH` at a time.
 * KEYS: 1 events(id), 2 versions, 3 snapshots, 4 feed, 5 seq, 6 meta, 7 deregistered, 8 outbox,
 *       9 outbox-on, 10 the fence's epoch (meta when there is no fence), 11 the event index.
 * ARGV: 1 id, 2 version, 3 compaction kind, 4 event JSON (no seq), 5 snapshot JSON,
 *       6 max events per instance, 7 feed max length, 8 type, 9 from status, 10 to status,
 *       11 timestamp, 12 incarnation, 13 fence token or '', 14 '' | '-' (registered) | '+' (deregistered),
 *       15 max deregistered instances, 16 the events key of an instance without its id (`events('')`).
 * Returns the seq, or an error VERSION_CONFLICT <last> | STALE_FENCE <current> | INCARNATION <id>.
 */
export const APPEND = new Script('append', `
${CHECK_INCARNATION('KEYS[6]', 'ARGV[12]')}
if ARGV[13] ~= '' then
  local current = redis.call('GET', KEYS[10])
  if current ~= ARGV[13] then return redis.error_reply('STALE_FENCE ' .. (current or 'none')) end
end
local last = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '-1')
if last >= tonumber(ARGV[2]) then return redis.error_reply('VERSION_CONFLICT ' .. last) end
local seq = redis.call('INCR', KEYS[5])
local sid = redis.call('XADD', KEYS[1], '*', 'q', seq, 'k', ARGV[3], 'e', ARGV[4])
redis.call('ZADD', KEYS[11], seq, sid .. ' ' .. ARGV[1])
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[7], '*', 'q', seq, 'i', ARGV[1], 'e', ARGV[4])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[5])
if ARGV[14] == '-' then redis.call('ZREM', KEYS[7], ARGV[1])
elseif ARGV[14] == '+' then
  redis.call('ZADD', KEYS[7], seq, ARGV[1])
  local over = math.min(redis.call('ZCARD', KEYS[7]) - tonumber(ARGV[15]), ${TRIM_BATCH})
  if over > 0 then
    local oldest = redis.call('ZPOPMIN', KEYS[7], over)
    for j = 1, #oldest, 2 do
      local gone = oldest[j]
      ${UNINDEX_HISTORY('KEYS[11]', 'ARGV[16] .. gone', 'gone')}
      redis.call('DEL', ARGV[16] .. gone)
      redis.call('HDEL', KEYS[2], gone)
      redis.call('HDEL', KEYS[3], gone)
      redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[7], '*', 'd', gone)
    end
  end
end
if redis.call('EXISTS', KEYS[9]) == 1 then
  redis.call('XADD', KEYS[8], '*', 'q', seq, 'i', ARGV[1], 'v', ARGV[2], 't', ARGV[8], 'f', ARGV[9], 'o', ARGV[10], 'ts', ARGV[11])
end
local max = tonumber(ARGV[6])
if redis.call('XLEN', KEYS[1]) > max then
  local all = redis.call('XRANGE', KEYS[1], '-', '+')
  local kinds = {}
  for j = 1, #all do
    local f = all[j][2]
    for k = 1, #f, 2 do if f[k] == 'k' then kinds[j] = f[k + 1] end end
  end
  local newest, seen = {}, {}
  for j = #all, 1, -1 do
    if not seen[kinds[j]] then seen[kinds[j]] = true; newest[j] = true end
  end
  local excess = #all - max
  local drop, gone = {}, {}
  for j = 1, #all do
    if excess > 0 and not newest[j] then drop[#drop + 1] = all[j][1]; gone[j] = true; excess = excess - 1 end
  end
  for j = 1, #all do
    if excess > 0 and not gone[j] then drop[#drop + 1] = all[j][1]; excess = excess - 1 end
  end
  for j = 1, #drop, 500 do redis.call('XDEL', KEYS[1], unpack(drop, j, math.min(j + 499, #drop))) end
  for j = 1, #drop do redis.call('ZREM', KEYS[11], drop[j] .. ' ' .. ARGV[1]) end
end
return seq
`);

/**
 * Drops a deregistered instance's whole history (retention), fenced by the retention lease's
 * token; an instance registered again meanwhile is left alone. Every node forgets it from the feed.
 * KEYS: 1 events(id), 2 versions, 3 snapshots, 4 feed, 5 deregistered, 6 epoch, 7 meta, 8 the event index.
 * ARGV: 1 id, 2 token, 3 feed max length, 4 incarnation. Returns 1 when dropped, 0 when not deregistered.
 */
export const DROP = new Script('drop', `
${CHECK_INCARNATION('KEYS[7]', 'ARGV[4]')}
local current = redis.call('GET', KEYS[6])
if current ~= ARGV[2] then return redis.error_reply('STALE_FENCE ' .. (current or 'none')) end
if not redis.call('ZSCORE', KEYS[5], ARGV[1]) then return 0 end
${UNINDEX_HISTORY('KEYS[8]', 'KEYS[1]', 'ARGV[1]')}
redis.call('DEL', KEYS[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[5], ARGV[1])
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[3], '*', 'd', ARGV[1])
return 1
`);

/**
 * A node's heartbeat: its expiry moves on, expired nodes leave, and the live set comes back with
 * the history's incarnation (an empty one means Redis lost its data). A second process using a
 * live node's id is refused: both would think they own the same instances.
 * KEYS: nodes, node owners, meta. ARGV: node id, ttl ms, process token.
 * Returns {live node ids, incarnation or ''}, or an error DUPLICATE_NODE.
 */
export const HEARTBEAT = new Script('heartbeat', `
${NOW}
local owner = redis.call('HGET', KEYS[2], ARGV[1])
local expiry = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '0')
if owner and owner ~= ARGV[3] and expiry > now then return redis.error_reply('DUPLICATE_NODE ' .. ARGV[1]) end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return {redis.call('ZRANGE', KEYS[1], 0, -1), redis.call('HGET', KEYS[3], 'incarnation') or ''}
`);

/**
 * A node leaving on purpose (SIGTERM): out of the live set and out of its leases at once, so the
 * others take over within one beat instead of one TTL.
 * KEYS: nodes, node owners, then the lease keys. ARGV: node id, process token.
 */
export const LEAVE = new Script('leave', `
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
end
local holder = ARGV[1] .. '|' .. ARGV[2] .. '|'
for j = 3, #KEYS do
  local current = redis.call('GET', KEYS[j])
  if current and string.sub(current, 1, #holder) == holder then redis.call('DEL', KEYS[j]) end
end
return 1
`);

/**
 * Takes or renews a lease. A new grant gets the next fencing token; the holder's renewal keeps
 * its token. KEYS: lease, epoch. ARGV: holder (`<node>|<process token>`), ttl ms.
 * Returns the token while held, nil when another node holds it.
 */
export const LEASE = new Script('lease', `
local current = redis.call('GET', KEYS[1])
local holder = ARGV[1] .. '|'
if not current then
  local token = redis.call('INCR', KEYS[2])
  redis.call('SET', KEYS[1], holder .. token, 'PX', ARGV[2])
  return token
end
if string.sub(current, 1, #holder) == holder then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return tonumber(string.sub(current, #holder + 1))
end
return false
`);

/**
 * Every live entry of a shared map; keys whose entry expired leave the index.
 * KEYS: the map's key index. ARGV: the prefix of its entries. Returns {key, value, key, value...}.
 */
export const MAP_ENTRIES = new Script('map-entries', `
local keys = redis.call('SMEMBERS', KEYS[1])
local result = {}
for _, key in ipairs(keys) do
  local value = redis.call('GET', ARGV[1] .. key)
  if value then result[#result + 1] = key; result[#result + 1] = value
  else redis.call('SREM', KEYS[1], key) end
end
return result
`);

/**
 * Reads held events in seq order from the event index, each from its instance's history; an
 * index entry whose event is gone (compacted since) is skipped. KEYS: the event index.
 * ARGV: 1 after (exclusive), 2 up to (inclusive), 3 how many, 4 the events key without its id.
 * Returns {last seq looked at (or '' when none), then instance id, record, seq, ...}.
 */
export const READ_EVENTS = new Script('read-events', `
local m = redis.call('ZRANGE', KEYS[1], '(' .. ARGV[1], ARGV[2], 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[3]), 'WITHSCORES')
local out = {''}
for j = 1, #m, 2 do
  local space = string.find(m[j], ' ', 1, true)
  local sid, id = string.sub(m[j], 1, space - 1), string.sub(m[j], space + 1)
  local entry = redis.call('XRANGE', ARGV[4] .. id, sid, sid)[1]
  if entry then
    local f = entry[2]
    local record, seq
    for k = 1, #f, 2 do
      if f[k] == 'e' then record = f[k + 1] elseif f[k] == 'q' then seq = f[k + 1] end
    end
    if record and seq then out[#out + 1] = id; out[#out + 1] = record; out[#out + 1] = seq end
  end
  out[1] = m[j + 1]
end
return out
`);

/**
 * Indexes the histories of some instances (data written before the event index existed).
 * KEYS: the event index. ARGV: the events key without its id, then instance ids.
 */
export const INDEX_HISTORIES = new Script('index-histories', `
for j = 2, #ARGV do
  for _, entry in ipairs(redis.call('XRANGE', ARGV[1] .. ARGV[j], '-', '+')) do
    local f = entry[2]
    for k = 1, #f, 2 do if f[k] == 'q' then redis.call('ZADD', KEYS[1], f[k + 1], entry[1] .. ' ' .. ARGV[j]) end end
  end
end
return 1
`);

/**
 * Appends to a shared log: the next position and the value, in one step, so positions follow the
 * order of appends whatever node makes them. A position is Redis's clock in microseconds, or one
 * more than the last when that is later: positions keep growing after Redis lost its data, so the
 * nodes following the log (which remember the last position they saw) never wait for it to catch up.
 * Trimmed to about `keep` entries (`~`: cheap, whole nodes).
 * KEYS: stream, last position. ARGV: value, keep. Returns the position (as a string: it needs 16 digits).
 */
export const LOG_APPEND = new Script('log-append', `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
local position = string.format('%.0f', math.max(now, last + 1))
redis.call('SET', KEYS[2], position)
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '0-' .. position, 'v', ARGV[1])
return position
`);
