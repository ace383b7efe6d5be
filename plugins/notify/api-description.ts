import { type Services } from '../../core/plugin-api.js';
import { API_DESCRIPTION, ERROR_RESPONSE, pathParameter } from '../../core/kits/services/index.js';

const json = (schema: unknown) => ({ 'application/json': { schema } });
const FILTER = { $ref: '#/components/schemas/NotificationFilter' };
const query = (name: string, description: string, type: 'string' | 'integer') => ({ name, in: 'query', required: false, description, schema: { type } });

/** notify's routes in the OpenAPI document: its status page and, when `filters-api` is on, SBA's filter API. */
export function notifyApi(services: Services, withFilters: boolean): void {
  services.contribute(API_DESCRIPTION, {
    tags: [{ name: 'notifications', description: 'The notification pipeline and Spring Boot Admin\'s notification filters' }],
    schemas: withFilters ? {
      NotificationFilter: {
        type: 'object', required: ['id', 'expiry', 'expired'],
        properties: {
          id: { type: 'string', description: '`F-<n>`' },
          instanceId: { type: 'string' },
          applicationName: { type: 'string' },
          expiry: { type: ['string', 'null'], format: 'date-time', description: 'null: never expires' },
          expired: { type: 'boolean' },
        },
      },
    } : {},
    paths: {
      '/notifications': {
        get: {
          tags: ['notifications'], summary: 'The pipeline\'s settings and counters (unrouted among them), each channel target\'s queue and delivery counts, and the applications fleet expectations cover', operationId: 'notifications',
          responses: { 200: { description: 'The pipeline described (secrets masked)', content: json({ type: 'object', required: ['settings', 'pipeline', 'channels', 'expectations'] }) }, default: ERROR_RESPONSE },
        },
      },
      ...(withFilters ? {
        '/notifications/filters': {
          get: {
            tags: ['notifications'], summary: 'The live notification filters', operationId: 'listNotificationFilters',
            responses: { 200: { description: 'The filters, oldest first', content: json({ type: 'array', items: FILTER }) }, default: ERROR_RESPONSE },
          },
          post: {
            tags: ['notifications'], summary: 'Silence an instance or an application', operationId: 'addNotificationFilter',
            parameters: [
              query('instanceId', 'The instance to silence (wins over applicationName)', 'string'),
              query('applicationName', 'The application to silence', 'string'),
              query('ttl', 'Milliseconds from now until the filter expires; missing or negative: never', 'integer'),
            ],
            responses: { 200: { description: 'The filter made', content: json(FILTER) }, default: ERROR_RESPONSE },
          },
        },
        '/notifications/filters/{id}': {
          delete: {
            tags: ['notifications'], summary: 'Remove a filter', operationId: 'deleteNotificationFilter', parameters: [pathParameter('id', 'Filter id (`F-<n>`)')],
            responses: { 200: { description: 'Removed (an empty body)' }, default: ERROR_RESPONSE },
          },
        },
      } : {}),
    },
  });
}
