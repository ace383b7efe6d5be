import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';

/**
 * The subscriber side of the SSE benchmark, in its own process (forked, driven over IPC): it
 * holds N raw TCP connections on a stream path, parses no more than it must (has this socket seen
 * a `data:` line since the round began?) and times one event from the moment it sends the
 * request that causes it until the last subscriber has it. One process, one clock.
 *
 * Given a JSON list of `Authorization` values (a 4th argument), subscriber `i` signs in with
 * value `i % list.length` and belongs to that group; a round naming a `group` waits for that
 * group's subscribers only, and fails when any other subscriber gets the event (bench/access: each
 * group a caller granted one application).
 */
type Command =
  | { readonly cmd: 'connect' }
  | { readonly cmd: 'round'; readonly path: string; readonly body: string; readonly group?: number; readonly authorization?: string }
  | { readonly cmd: 'close' };

export type Reply =
  | { readonly connected: number; readonly ms: number }
  | { readonly firstMs: number; readonly lastMs: number; readonly status: number }
  | { readonly error: string };

const [base = '', path = '', countText = '0', authorizationsText = '[]'] = process.argv.slice(2);
const authorizations = JSON.parse(authorizationsText) as string[];
const target = new URL(base);
const port = Number(target.port);
const host = target.hostname;
const count = Number(countText);
const CONNECT_CONCURRENCY = 200;
const ROUND_LIMIT_MS = 30_000;

interface Subscriber {
  readonly socket: Socket;
  /** Its `Authorization` value's index (0 without any). */
  readonly group: number;
  /** Whether this round's event reached it. */
  seen: boolean;
  /** The last bytes of the previous chunk, in case `data:` straddles two reads (rare: frames go out whole). */
  tail: Buffer | undefined;
}

const DATA = Buffer.from('data:');

const subscribers: Subscriber[] = [];
let round: { seen: number; expected: number; group: number | undefined; started: bigint; first: bigint | undefined; done: (last: bigint) => void; leaked: () => void } | undefined;
let opened = 0;
/** The group of the latest round, and how many events reached a subscriber outside it (during the round or after). */
let latestGroup: number | undefined;
let leaks = 0;

/** Opens one stream and resolves once its headers and the first `:ping` are in. */
function subscribe(): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    const group = authorizations.length > 0 ? opened++ % authorizations.length : 0;
    const subscriber: Subscriber = { socket, group, seen: true, tail: undefined };
    const authorization = authorizations.length > 0 ? `Authorization: ${authorizations[group]}\r\n` : '';
    let head = '';
    socket.setNoDelay(true);
    socket.on('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nAccept: text/event-stream\r\n${authorization}\r\n`);
    const onOpen = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      // A refusal (a 401, a 429) has no ping to wait for.
      if (head.includes('\r\n\r\n') && !head.startsWith('HTTP/1.1 200')) return reject(new Error(`not a stream: ${head.slice(0, 200)}`));
      if (!head.includes(':ping')) return;
      socket.off('data', onOpen);
      socket.on('data', (data: Buffer) => onData(subscriber, data));
      subscribers.push(subscriber);
      resolve();
    };
    socket.on('data', onOpen);
    socket.on('close', () => {
      if (round) process.send!({ error: 'a subscriber connection closed during a round' } satisfies Reply);
    });
  });
}

function onData(subscriber: Subscriber, data: Buffer): void {
  if (latestGroup !== undefined && subscriber.group !== latestGroup && data.includes(DATA)) {
    leaks += 1;
    round?.leaked();
    return;
  }
  if (subscriber.seen || !round) return;
  const bytes = subscriber.tail ? Buffer.concat([subscriber.tail, data]) : data;
  if (bytes.includes(DATA)) {
    subscriber.seen = true;
    const now = process.hrtime.bigint();
    round.first ??= now;
    if (++round.seen === round.expected) round.done(now);
  } else {
    subscriber.tail = bytes.subarray(-4);
  }
}

async function connectAll(): Promise<Reply> {
  const started = process.hrtime.bigint();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      await subscribe();
    }
  };
  await Promise.all(Array.from({ length: CONNECT_CONCURRENCY }, worker));
  return { connected: subscribers.length, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}

const triggerAgent = new Agent({ keepAlive: true, maxSockets: 1 });

/** Sends the trigger and resolves with its status (the body is read and dropped). */
function trigger(triggerPath: string, body: string, authorization: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...(authorization ? { authorization } : {}) };
    const req = request({ host, port, path: triggerPath, method: 'POST', agent: triggerAgent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function runRound({ path: triggerPath, body, group, authorization }: Extract<Command, { cmd: 'round' }>): Promise<Reply> {
  if (leaks > 0) return { error: `${leaks} event(s) reached subscribers outside their group` };
  latestGroup = group;
  for (const subscriber of subscribers) {
    subscriber.seen = false;
    subscriber.tail = undefined;
  }
  let timer: NodeJS.Timeout | undefined;
  const reached = new Promise<bigint>((resolve, reject) => {
    const expected = group === undefined ? subscribers.length : subscribers.filter((subscriber) => subscriber.group === group).length;
    const leaked = () => reject(new Error(`a subscriber outside group ${group} got the event`));
    round = { seen: 0, expected, group, started: process.hrtime.bigint(), first: undefined, done: resolve, leaked };
    timer = setTimeout(() => reject(new Error(`only ${round?.seen} of ${expected} subscribers got the event within ${ROUND_LIMIT_MS} ms`)), ROUND_LIMIT_MS);
  });
  const started = round!.started;
  try {
    const [status, last] = await Promise.all([trigger(triggerPath, body, authorization), reached]);
    return { firstMs: Number(round!.first! - started) / 1e6, lastMs: Number(last - started) / 1e6, status };
  } finally {
    clearTimeout(timer);
    round = undefined;
  }
}

process.on('message', (message: Command) => {
  const reply = (work: Promise<Reply>) => work.then((answer) => process.send!(answer), (error: Error) => process.send!({ error: error.message } satisfies Reply));
  if (message.cmd === 'connect') reply(connectAll());
  else if (message.cmd === 'round') reply(runRound(message));
  else {
    for (const { socket } of subscribers) socket.destroy();
    triggerAgent.destroy();
    process.disconnect();
  }
});
