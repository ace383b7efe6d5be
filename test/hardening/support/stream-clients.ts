import { request } from 'node:http';
import { connect, type Socket } from 'node:net';

/**
 * An SSE subscriber that reads everything and keeps only what a count needs: the `id:` of every
 * message (the event's global `seq`), checked to be consecutive as it goes. A thousand of these
 * must not cost the test process more than the daemon it measures.
 */
export class StreamReader {
  first: number | undefined;
  last: number | undefined;
  count = 0;
  /** Places where an id did not follow the previous one by exactly 1 (a gap, a repeat, a reorder). */
  readonly breaks: string[] = [];
  ended = false;
  #carry = '';
  #waiters = new Set<() => void>();

  private constructor(private readonly close: () => void) {}

  static open(port: number, path: string, headers: Record<string, string>): Promise<StreamReader> {
    return new Promise((resolve, reject) => {
      let reader: StreamReader;
      const req = request({ host: '127.0.0.1', port, path, agent: false, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`${path}: ${res.statusCode}`));
          res.resume();
          return;
        }
        res.setEncoding('utf8');
        let connected = false;
        res.on('data', (text: string) => {
          if (!connected && text.includes(':ping')) {
            connected = true;
            resolve(reader);
          }
          reader.#scan(text);
        });
        const end = () => {
          reader.ended = true;
          reader.#notify();
        };
        res.on('end', end);
        res.on('close', end);
        res.on('error', end);
      });
      reader = new StreamReader(() => req.destroy());
      req.on('error', reject);
      req.end();
    });
  }

  /** Resolves once `count` messages arrived; rejects if the stream ends first or after `timeoutMs`. */
  until(count: number, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`${this.count} of ${count} messages after ${timeoutMs} ms`)), timeoutMs);
      const check = () => {
        if (this.count >= count) done();
        else if (this.ended) done(new Error(`the stream ended after ${this.count} of ${count} messages`));
      };
      const done = (error?: Error) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        if (error) reject(error);
        else resolve();
      };
      this.#waiters.add(check);
      check();
    });
  }

  destroy(): void {
    this.close();
  }

  #scan(text: string): void {
    const lines = (this.#carry + text).split('\n');
    this.#carry = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('id: ')) continue;
      const id = Number(line.slice(4));
      if (this.last !== undefined && id !== this.last + 1) this.breaks.push(`${this.last} → ${id}`);
      this.first ??= id;
      this.last = id;
      this.count += 1;
    }
    this.#notify();
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

/** A subscriber that reads up to its first `:ping` (so it is surely subscribed) and then never reads again. */
export function openStalled(port: number, path: string, headers: Record<string, string>): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    const onData = (text: string) => {
      received += text;
      if (!received.includes(':ping')) return;
      socket.off('data', onData);
      socket.pause();
      socket.on('error', () => undefined); // the daemon may reset it once it gives up on the reader
      resolve(socket);
    };
    socket.on('data', onData);
    socket.once('error', reject);
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n${lines}\r\n`);
  });
}
