import { type Services } from '../../core/plugin-api.js';
import { API_DESCRIPTION, ERROR_RESPONSE, pathParameter } from '../../core/kits/services/index.js';

/** A Server-Sent Events body: JSON Schema can only say it is text, so the description says the rest. */
const stream = (what: string) => ({
  'text/event-stream': {
    schema: {
      type: 'string',
      description: `Server-Sent Events: each message is an \`id:\` (resume with Last-Event-ID) and one \`data:\` line holding ${what}; a \`:ping\` comment on connect and every sse.ping-interval.`,
    },
  },
});
const LAST_EVENT_ID = { name: 'Last-Event-ID', in: 'header', required: false, description: 'Resume: the events held after this id are sent first', schema: { type: 'string' } };
const ID = pathParameter('id', 'Instance id (12 hex characters)');
const EVENTS = 'one InstanceEvent (#/components/schemas/InstanceEvent)';
const APPLICATIONS = 'one Application (#/components/schemas/Application) after each change to it';

/**
 * sse's routes in the OpenAPI document. The Accept-header forms share their path with
 * rest-api's JSON operations: the document joins the two answers by media type.
 */
export function streamsApi(services: Services): void {
  const streamOp = (summary: string, operationId: string, what: string, parameters: unknown[] = []) => ({
    tags: ['streams'], summary, operationId, parameters: [...parameters, LAST_EVENT_ID],
    description: 'With Accept: text/event-stream: a live stream.',
    responses: { 200: { description: 'The stream', content: stream(what) }, default: ERROR_RESPONSE },
  });
  services.contribute(API_DESCRIPTION, {
    tags: [{ name: 'streams', description: 'Live Server-Sent Event streams' }],
    paths: {
      '/instances/events': { get: streamOp('Every event, live', 'streamEvents', EVENTS) },
      '/instances/{id}/events': { get: { ...streamOp('One instance\'s events, live', 'streamInstanceEvents', EVENTS, [ID]), description: 'Always a stream.' } },
      '/instances/{id}': { get: streamOp('One instance\'s events, live', 'streamInstance', EVENTS, [ID]) },
      '/applications/events': { get: { ...streamOp('Application snapshots, live', 'streamApplicationEvents', APPLICATIONS), description: 'Always a stream.' } },
      '/applications': { get: streamOp('Application snapshots, live', 'streamApplications', APPLICATIONS) },
    },
  });
}
