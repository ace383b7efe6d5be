import type { ServerResponse } from 'node:http';
import { messageOf, type PluginContext, type VigilRequest } from '../../core/plugin-api.js';
import type { AuditEntry } from './entry.js';
import { matches } from './memory-trail.js';
import { parseAuditQuery } from './query.js';
import type { AuditTrail } from './trail.js';

const SSE = 'text/event-stream';
const STREAM_HEADERS = {
  'content-type': 'text/event-stream;charset=UTF-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
};
const PING_MS = 30_000;
/** A stream whose client reads this far behind is ended (it reconnects with its Last-Event-ID): memory stays bounded. */
const MAX_BACKLOG_BYTES = 1024 * 1024;

function frameOf(entry: AuditEntry): string {
  return `id: ${entry.id}\ndata: ${JSON.stringify(entry)}\n\n`;
}

function lastEventIdOf(req: VigilRequest): number | undefined {
  const raw = req.headers['last-event-id'];
  if (typeof raw !== 'string' || !/^\s*\d{1,16}\s*$/.test(raw)) return undefined;
  return Number(raw);
}

/**
 * `GET /audit` (the `audit.read` action: admin): the newest entries first, filtered; with
 * `Accept: text/event-stream`, entries as they are recorded, after `Last-Event-ID` when given.
 */
export function auditRoutes(ctx: PluginContext<unknown>, trail: AuditTrail): void {
  const { http } = ctx;
  const catchUp = async (): Promise<void> => {
    // A node answers with what it has when the cluster's trail cannot be read; the failure is logged.
    await trail.pull().catch((error: unknown) => ctx.log.warn(`the cluster's audit trail could not be read: ${messageOf(error)}`));
  };

  http.route('GET', '/audit', async (req, res) => {
    const { filter, limit } = parseAuditQuery(req);
    await catchUp();
    await http.sendJsonArray(res, 200, trail.memory.newest(filter, limit), (entry) => entry, { 'cache-control': 'no-store' });
  }, { action: 'audit.read' });

  http.route('GET', '/audit', async (req: VigilRequest, res: ServerResponse) => {
    const { filter } = parseAuditQuery(req);
    if (req.method === 'HEAD') {
      res.writeHead(200, STREAM_HEADERS).end();
      return;
    }
    await catchUp();
    res.writeHead(200, STREAM_HEADERS);
    res.write(':ok\n\n');
    const send = (entry: AuditEntry): void => {
      if (!matches(entry, filter)) return;
      if (res.writableLength > MAX_BACKLOG_BYTES) {
        res.end();
        return;
      }
      res.write(frameOf(entry));
    };
    const lastId = lastEventIdOf(req);
    if (lastId !== undefined) for (const entry of trail.memory.after(lastId, filter)) send(entry);
    const stop = trail.listen(send);
    const ping = setInterval(() => res.write(':ping\n\n'), PING_MS);
    const end = (): void => {
      stop();
      clearInterval(ping);
      ctx.signal.removeEventListener('abort', finish);
    };
    const finish = (): void => {
      res.end();
    };
    ctx.signal.addEventListener('abort', finish, { once: true });
    res.once('close', end);
  }, { accepts: SSE, action: 'audit.read' });
}
