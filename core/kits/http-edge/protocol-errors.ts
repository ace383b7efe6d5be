import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody, type PluginContext, type VigilRequest } from '../../plugin-api.js';

/** Statuses for the parser's and Node's own refusals; anything else the parser refuses is a 400. */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

type ParserError = Error & { code?: string; reason?: string };

/**
 * Requests that never reach the router still get the contract's JSON error. Node answers them
 * itself with a bare status line and no body: a request its parser refuses (a control byte in a
 * header, a broken request line, bad chunked framing, headers over 16 KiB), an `Expect` other than
 * `100-continue`, and CONNECT, whose connection it just drops.
 */
export function answerProtocolErrors(server: Server, http: Pick<PluginContext['http'], 'sendError'>): void {
  server.on('clientError', (error: ParserError, socket: Duplex) => {
    // Nobody is listening any more, or a response already started: nothing can be said cleanly.
    // `_httpMessage` is Node's own link from a socket to the response being written (no public API).
    const inflight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inflight?.headersSent) {
      socket.destroy();
      return;
    }
    const status = STATUS_BY_CODE[error.code ?? ''] ?? 400;
    writeRawError(socket, status, messageFor(status, error));
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    http.sendError(asRequest(req), res, 417, `unsupported Expect header ${JSON.stringify(req.headers.expect)}; only 100-continue is supported`, { connection: 'close' });
  });
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => undefined); // a reset while answering must not become an uncaught error
    writeRawError(socket, 405, 'CONNECT is not supported: this server is not a forward proxy');
  });
}

function messageFor(status: number, error: ParserError): string {
  if (status === 431) return 'request headers are too large';
  if (status === 408) return 'the request was not received in time';
  return `malformed HTTP request: ${error.reason ?? error.message}`;
}

/** How long a client has to read the error and close after Vigil ended its side. */
const CLOSE_GRACE_MS = 1000;

/**
 * The parser's state is lost, so the path is unknown and the connection cannot carry another
 * request. Ending only our side would leave the socket (and its file descriptor) to the client,
 * and a slowloris client never closes: it is destroyed after a grace period for reading the error.
 */
function writeRawError(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify(errorBody(status, message, ''));
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/** `sendError` reads the path; before routing it is the request target without its query. */
function asRequest(req: IncomingMessage): VigilRequest {
  const request = req as VigilRequest;
  request.path ??= (req.url ?? '/').split('?')[0]!;
  return request;
}
