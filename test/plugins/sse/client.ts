import { request, type IncomingHttpHeaders } from 'node:http';
import { createParser } from 'eventsource-parser';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { call } from '../../support/http.js';

/** Test helpers for the sse suite: a stream reader built on node:http + eventsource-parser, and instance fixtures. */

export interface Message {
  readonly id: string | undefined;
  readonly data: string;
  /** The parsed `data:`; test code reads fields freely. */
  readonly json: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- payloads are asserted field by field
}

export interface SseClient {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The body of a non-200 answer. */
  readonly body: string;
  readonly messages: Message[];
  readonly comments: string[];
  /** Resolves once the server ended the stream (or the connection closed). */
  readonly ended: Promise<void>;
  isEnded(): boolean;
  /** Resolves with the first message (held or future) that matches; rejects if the stream ends first. */
  waitFor(match: (message: Message) => boolean, what: string, timeoutMs?: number): Promise<Message>;
  /** Resolves once `check` holds, re-checked after every message, comment and the end. */
  until(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens a stream (Accept: text/event-stream unless overridden) and resolves once the headers are in. */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    // agent: false gives each stream its own connection, as a browser's EventSource has.
    const req = request(url, { agent: false, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const messages: Message[] = [];
      const comments: string[] = [];
      const waiters = new Set<() => void>();
      let body = '';
      let ended = false;
      const notify = () => {
        for (const waiter of [...waiters]) waiter();
      };
      const parser = createParser({
        onEvent: (event) => {
          messages.push({ id: event.id, data: event.data, json: JSON.parse(event.data) as Message['json'] });
          notify();
        },
        onComment: (comment) => {
          comments.push(comment.trim());
          notify();
        },
      });
      const decoder = new TextDecoder();
      const endedPromise = new Promise<void>((done) => {
        const finish = () => {
          if (ended) return;
          ended = true;
          done();
          notify();
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      });
      res.on('data', (chunk: Buffer) => {
        const text = decoder.decode(chunk, { stream: true });
        if (res.statusCode === 200) parser.feed(text);
        else body += text;
      });

      const until = (check: () => boolean, what: string, timeoutMs = 5000) => new Promise<void>((done, fail) => {
        const attempt = () => {
          if (check()) {
            cleanup();
            done();
          } else if (ended) {
            cleanup();
            fail(new Error(`${url}: stream ended before ${what}; got ${messages.length} message(s), ${comments.length} comment(s)`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          fail(new Error(`${url}: no ${what} within ${timeoutMs} ms; got ${messages.length} message(s), ${comments.length} comment(s)`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(attempt);
        };
        waiters.add(attempt);
        attempt();
      });

      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        get body() {
          return body;
        },
        messages,
        comments,
        ended: endedPromise,
        isEnded: () => ended,
        until,
        waitFor: async (match, what, timeoutMs) => {
          await until(() => messages.some(match), what, timeoutMs);
          return messages.find(match)!;
        },
        close: () => req.destroy(),
      };
      if (res.statusCode === 200) resolve(client);
      else res.on('end', () => resolve(client));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A kernel with rest-api and sse; `sse` merges into the sse section. */
export function kernel(sse: Record<string, unknown> = {}, config: Record<string, unknown> = {}): Promise<TestKernel> {
  return startTestKernel({ plugins: ['rest-api', 'sse'], config: { ...config, sse: { 'ping-interval': '200ms', ...sse } } });
}

/** A registration for a fake instance (no monitor runs, so nothing calls it). */
export function registration(name: string, port: number, metadata: Record<string, string> = {}): Record<string, unknown> {
  return { name, healthUrl: `http://127.0.0.1:${port}/actuator/health`, managementUrl: `http://127.0.0.1:${port}/actuator`, metadata };
}

/** Registers over HTTP and returns the id. */
export async function register(tk: TestKernel, body: Record<string, unknown>): Promise<string> {
  const reply = await call('POST', `${tk.url}/instances`, { json: body });
  if (reply.status !== 201) throw new Error(`POST /instances: ${reply.status} ${reply.text}`);
  return (reply.json as { id: string }).id;
}

export async function deregister(tk: TestKernel, id: string): Promise<void> {
  const reply = await call('DELETE', `${tk.url}/instances/${id}`);
  if (reply.status !== 204) throw new Error(`DELETE /instances/${id}: ${reply.status} ${reply.text}`);
}
