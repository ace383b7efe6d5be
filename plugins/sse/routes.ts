import type { ServerResponse } from 'node:http';
import { HttpError, type PluginContext, type RouteHandler, type VigilRequest } from '../../core/plugin-api.js';
import { scopeOf } from '../../core/kits/access-scope/index.js';
import { STREAM_HEADERS, lastEventIdOf } from './frames.js';
import type { StreamHub } from './hub.js';
import { earlierEvents } from './replay.js';
import type { Topic } from './topic.js';

const SSE = 'text/event-stream';
/** How long a resumed stream waits for this node to catch up with the client's last id. */
const CATCH_UP_MS = 3000;

/**
 * Every stream form of the contract (CONTRACT §4): the seed's `/events` paths, which are always
 * streams, and SBA's Accept-header forms, which fall through to the JSON routes otherwise.
 */
export function streamRoutes({ http, registry }: PluginContext<unknown>, hub: StreamHub): void {
  // HEAD gets a GET's headers and ends: Node ignores body writes on a HEAD response and holds the
  // headers back until the first one, so a subscribed HEAD would never be answered at all.
  const stream = async (req: VigilRequest, res: ServerResponse, topic: Topic): Promise<void> => {
    if (req.method === 'HEAD') {
      res.writeHead(200, STREAM_HEADERS).end();
      return;
    }
    const lastEventId = lastEventIdOf(req);
    // An id this node has not reached yet may come from a node ahead of it (a cluster): catch up first.
    if (lastEventId !== undefined && lastEventId > registry.lastSeq) await registry.waitForSeq(lastEventId, CATCH_UP_MS);
    // What it missed that this node no longer holds in memory (a cluster node) is read first.
    const earlier = lastEventId === undefined ? undefined : await earlierEvents(topic, lastEventId, registry);
    hub.subscribe(res, topic, lastEventId, scopeOf(req), earlier);
  };
  const open = (topic: Topic): RouteHandler => (req, res) => stream(req, res, topic);
  const applications = open({ kind: 'applications' });

  const oneInstance = (kind: 'instance' | 'instance-snapshots'): RouteHandler => (req, res) => {
    const id = req.params.id!;
    // Unknown means never seen or no longer held; a deregistered instance still held may be watched.
    // Checked before anything is written, so the 404 is the ordinary JSON error.
    if (!registry.get(id)) throw new HttpError(404, `instance ${id} not found`);
    return stream(req, res, { kind, id });
  };

  const read = { action: 'instances.read' } as const;
  http.route('GET', '/instances/events', open({ kind: 'events' }), { accepts: SSE, ...read });
  http.route('GET', '/instances/:id/events', oneInstance('instance'), { ...read, target: 'instance' });
  // SBA's InstancesController: the instance itself (the JSON of `GET /instances/{id}`) after each
  // of its events, so a client holds its current state without folding events.
  http.route('GET', '/instances/:id', oneInstance('instance-snapshots'), { accepts: SSE, ...read, target: 'instance' });
  http.route('GET', '/applications/events', applications, { action: 'applications.read' });
  http.route('GET', '/applications', applications, { accepts: SSE, action: 'applications.read' });
}
