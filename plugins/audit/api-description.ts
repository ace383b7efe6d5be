import { type Services } from '../../core/plugin-api.js';
import { API_DESCRIPTION, ERROR_RESPONSE } from '../../core/kits/services/index.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from './query.js';

const query = (name: string, description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ name, in: 'query', required: false, description, schema });

const ENTRY = {
  type: 'object',
  required: ['id', 'timestamp', 'actor', 'address', 'action', 'method', 'path', 'instance', 'application', 'status', 'durationMs', 'detail'],
  properties: {
    id: { type: 'integer', description: 'grows with every entry (across the cluster): the event id of the stream' },
    timestamp: { type: 'string', format: 'date-time' },
    actor: {
      type: 'object', required: ['name', 'kind', 'via'],
      properties: { name: { type: 'string' }, kind: { enum: ['user', 'token', 'anonymous', 'system'] }, via: { enum: ['basic', 'token', 'oidc', null] } },
    },
    address: { type: ['string', 'null'] },
    action: { type: 'string', description: 'the action the access check decided, or auth.sign-in, auth.sign-out, auth.sign-in-failed, config.reload' },
    method: { type: ['string', 'null'] },
    path: { type: ['string', 'null'] },
    instance: { type: ['string', 'null'] },
    application: { type: ['string', 'null'] },
    status: { type: ['integer', 'null'] },
    durationMs: { type: ['number', 'null'] },
    detail: { description: 'a proxied write\'s JSON body (≤ 1 KiB, secrets masked), or what a failed sign-in or reload was; null otherwise' },
  },
};

/** `GET /audit` in the OpenAPI document. */
export function auditApi(services: Services): void {
  services.contribute(API_DESCRIPTION, {
    tags: [{ name: 'audit', description: 'The audit trail (admin)' }],
    paths: {
      '/audit': {
        get: {
          tags: ['audit'], summary: 'The audit trail, newest first; live with Accept: text/event-stream (resumable with Last-Event-ID)', operationId: 'audit',
          parameters: [
            query('actor', 'the actor\'s name'), query('application', 'the application name'), query('instance', 'the instance id'),
            query('action', 'the action'), query('since', 'an ISO date or date-time with a zone', { type: 'string', format: 'date-time' }),
            query('limit', `at most this many (default ${DEFAULT_LIMIT})`, { type: 'integer', minimum: 1, maximum: MAX_LIMIT }),
          ],
          responses: {
            200: {
              description: 'The matching entries, newest first; or, to Accept: text/event-stream, each entry as it is recorded',
              content: { 'application/json': { schema: { type: 'array', items: ENTRY } }, 'text/event-stream': { schema: { type: 'string' } } },
            },
            default: ERROR_RESPONSE,
          },
        },
      },
    },
  });
}
