import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';
import { messageOf } from '../../core/plugin-api.js';
import type { Attempt, OutgoingRequest } from '../../core/kits/notify-channel/index.js';
import { retryAfterMs } from './pacing.js';

/** Enough of a receiver's answer to read its error and retry fields; the rest is discarded. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** How much of an error answer goes into the failure reason. */
const REASON_EXCERPT = 200;

export interface SenderOptions {
  readonly timeoutMs: number;
  /** `notify.proxy`, or '' for direct calls. */
  readonly proxy: string;
  readonly userAgent: string;
  readonly signal: AbortSignal;
}

/**
 * Every channel's HTTP calls: one keep-alive agent (or the proxy), a timeout covering the whole
 * exchange, no redirects, and the classification the retry policy needs. Notification receivers
 * are the operator's own endpoints, so these calls do not go through the instance call policy
 * (`ctx.outbound`), whose SSRF guard is about addresses instances make Vigil call.
 */
export class HttpSender {
  readonly #dispatcher: Dispatcher;

  constructor(private readonly options: SenderOptions) {
    const connect = { timeout: options.timeoutMs };
    this.#dispatcher = options.proxy
      ? new ProxyAgent({ uri: options.proxy, connections: 16, connect, proxyTls: connect, requestTls: connect })
      : new Agent({ connections: 16, keepAliveTimeout: 10_000, connect });
  }

  /**
   * `redact` masks the calling channel's secrets in the answer before it is cut to an excerpt, so
   * no cut can leave a piece of a secret unmasked.
   */
  async send(outgoing: OutgoingRequest, redact: (text: string) => string = (text) => text): Promise<Attempt> {
    const json = typeof outgoing.body !== 'string' && outgoing.body !== undefined;
    const body = json ? JSON.stringify(outgoing.body) : (outgoing.body as string | undefined);
    // The timeout is undici's own (connect, headers, each body read): a timer and a composite
    // signal per request would cost a burst of 2,000 notifications megabytes for nothing.
    let status: number;
    let headers: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      const res = await request(outgoing.url, {
        method: outgoing.method ?? 'POST',
        headers: {
          'user-agent': this.options.userAgent,
          ...(json ? { 'content-type': 'application/json' } : {}),
          ...outgoing.headers,
        },
        body,
        dispatcher: this.#dispatcher,
        signal: this.options.signal,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
      status = res.statusCode;
      headers = res.headers;
      // A success's body is not read, only drained, unless the channel needs what it says.
      text = status >= 200 && status < 300 && !outgoing.readAnswer ? (await res.body.dump(), '') : await readCapped(res.body);
    } catch (error) {
      return { outcome: 'retry', reason: redact(networkReason(error, this.options.timeoutMs)) };
    }
    if (status >= 200 && status < 300) return { outcome: 'delivered', status, ...(outgoing.readAnswer ? { body: text } : {}) };
    const reason = `HTTP ${status}${excerpt(redact(text))}`;
    if (status === 408 || status === 429 || status >= 500) {
      const header = headers['retry-after'];
      const wait = retryAfterMs(Array.isArray(header) ? header[0] : header) ?? fromBody(outgoing, text);
      return { outcome: 'retry', reason, status, ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
    }
    if (status >= 300 && status < 400) return { outcome: 'failed', status, reason: `${reason} (redirects are not followed: check the URL)` };
    return { outcome: 'failed', status, reason };
  }

  async close(): Promise<void> {
    await this.#dispatcher.destroy().catch(() => undefined);
  }
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= MAX_ANSWER_BYTES) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

function fromBody(outgoing: OutgoingRequest, text: string): number | undefined {
  if (!outgoing.retryAfterFromBody || !text) return undefined;
  try {
    return outgoing.retryAfterFromBody(JSON.parse(text));
  } catch {
    return undefined;
  }
}

function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (!line) return '';
  return `: ${line.length > REASON_EXCERPT ? `${line.slice(0, REASON_EXCERPT)}…` : line}`;
}

const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

function networkReason(error: unknown, timeoutMs: number): string {
  const code = (error as { code?: string }).code;
  if (code && TIMEOUTS.has(code)) return `no answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const message = messageOf(error);
  return [code ?? cause?.code, cause?.message ?? message].filter(Boolean).join(': ');
}
