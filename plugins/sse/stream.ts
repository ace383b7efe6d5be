import type { ServerResponse } from 'node:http';
import { ALL_APPLICATIONS, type ApplicationScope } from '../../core/plugin-api.js';
import { PING, STREAM_HEADERS, type Frame } from './frames.js';

/**
 * One subscriber connection. Writes never wait: a socket that cannot keep up queues in its own
 * buffer, and once that queue reaches `maxBufferedBytes` the connection is dropped, so a stalled
 * reader costs bounded memory and never slows the fan-out to the others.
 */
export class SubscriberStream {
  #open = true;
  /** Events with a `seq` at or below this were already sent by the replay; live copies are skipped. */
  #floor = 0;

  constructor(
    readonly res: ServerResponse,
    private readonly maxBufferedBytes: number,
    /** Called once when the stream goes away for any reason (client left, overflow, shutdown). */
    private readonly onGone: (stream: SubscriberStream, reason: 'closed' | 'overflow' | 'ended') => void,
    /** The applications this subscriber may see (the access check's decision). */
    readonly scope: ApplicationScope = ALL_APPLICATIONS,
  ) {
    res.once('close', () => this.#gone('closed'));
  }

  /** Sends the headers and the first ping. */
  begin(): void {
    this.res.writeHead(200, STREAM_HEADERS);
    this.res.write(PING.bytes);
  }

  /** Marks everything up to `seq` as delivered, so a live event the replay already covered is not sent twice. */
  deliveredUpTo(seq: number): void {
    this.#floor = Math.max(this.#floor, seq);
  }

  /** Writes an event frame unless the replay already sent it. */
  sendEvent(seq: number, frame: Frame): void {
    if (seq <= this.#floor) return;
    this.#floor = seq;
    this.send(frame);
  }

  /** Writes a frame or comment; drops the connection instead when too much is still unsent. */
  send(frame: Frame): void {
    if (!this.#open) return;
    // writableLength counts what Node still holds for this response and its socket: it only
    // stays high when the peer does not read, because the kernel takes data as fast as it drains.
    if (this.res.writableLength >= this.maxBufferedBytes) {
      this.#gone('overflow');
      this.res.destroy();
      return;
    }
    const socket = this.res.socket;
    // Once node:http has the socket (it is null while an earlier pipelined response still holds
    // it), the headers and the first ping are in the socket's queue: a chunk written to the
    // socket goes out after them, in order. HTTP/1.0 clients get no chunked framing: res does it.
    if (socket && this.res.chunkedEncoding) socket.write(frame.chunk);
    else this.res.write(frame.bytes);
  }

  /** Ends the stream cleanly (shutdown). */
  end(): void {
    if (!this.#open) return;
    this.#gone('ended');
    this.res.end();
  }

  #gone(reason: 'closed' | 'overflow' | 'ended'): void {
    if (!this.#open) return;
    this.#open = false;
    this.onGone(this, reason);
  }
}
