import { type Services } from '../../../core/plugin-api.js';
import { API_DESCRIPTION, ERROR_RESPONSE, pathParameter } from '../../../core/kits/services/index.js';

const json = (schema: unknown) => ({ 'application/json': { schema } });
const WINDOW = { $ref: '#/components/schemas/MaintenanceWindow' };
const strings = (description: string) => ({ type: 'array', items: { type: 'string' }, description });

/** The maintenance API in the OpenAPI document. */
export function maintenanceApi(services: Services): void {
  services.contribute(API_DESCRIPTION, {
    tags: [{ name: 'maintenance', description: 'Maintenance windows: notifications of the applications and instances in one are held back, and what changed is reported at its end' }],
    schemas: {
      MaintenanceWindow: {
        type: 'object',
        required: ['id', 'applications', 'instances', 'start', 'end', 'active', 'reason', 'createdBy', 'recurring'],
        properties: {
          id: { type: 'string', description: '`M-<n>`, or the name of a recurring window of `notify.maintenance`' },
          applications: strings('Globs on application names (`*`, `?`)'),
          instances: strings('Instance ids'),
          start: { type: 'string', format: 'date-time', description: 'Start of the window (for a recurring one: of its current or next occurrence)' },
          end: { type: 'string', format: 'date-time', description: 'End of the window (exclusive)' },
          active: { type: 'boolean', description: 'Whether the window runs now' },
          reason: { type: 'string' },
          createdBy: { type: 'string', description: 'Who made it (`anonymous` without authentication; `config` for a recurring window)' },
          recurring: { type: 'boolean' },
          schedule: { type: 'string', description: 'Recurring windows: the 5-field cron pattern' },
          timezone: { type: 'string', description: 'Recurring windows: the IANA zone the pattern is read in' },
          duration: { type: 'integer', description: 'Recurring windows: the length of each occurrence, in ms' },
        },
      },
      NewMaintenanceWindow: {
        type: 'object',
        additionalProperties: false,
        description: 'At least one of `applications` and `instances`; either `end` or `duration`',
        properties: {
          applications: { ...strings('Globs on application names (at most 100)'), maxItems: 100 },
          instances: { ...strings('Instance ids (at most 1,000)'), maxItems: 1000 },
          start: { type: 'string', format: 'date-time', description: 'Default (and at the earliest): now' },
          end: { type: 'string', format: 'date-time' },
          duration: { type: ['string', 'integer'], description: '`90m`, `2h`, `PT2H`, or milliseconds' },
          reason: { type: 'string', maxLength: 1000 },
        },
      },
    },
    paths: {
      '/maintenance': {
        get: {
          tags: ['maintenance'], summary: 'The maintenance windows running or to come, recurring ones included', operationId: 'listMaintenanceWindows',
          responses: { 200: { description: 'The windows, by start', content: json({ type: 'array', items: WINDOW }) }, default: ERROR_RESPONSE },
        },
        post: {
          tags: ['maintenance'], summary: 'Start or plan a maintenance window', operationId: 'addMaintenanceWindow',
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/NewMaintenanceWindow' }) },
          responses: {
            201: { description: 'The window made; `Location` names it', content: json(WINDOW) },
            429: { description: '`notify.max-maintenance` windows exist already' },
            default: ERROR_RESPONSE,
          },
        },
      },
      '/maintenance/{id}': {
        get: {
          tags: ['maintenance'], summary: 'One maintenance window', operationId: 'maintenanceWindow', parameters: [pathParameter('id', 'Window id (`M-<n>` or a recurring window\'s name)')],
          responses: { 200: { description: 'The window', content: json(WINDOW) }, default: ERROR_RESPONSE },
        },
        delete: {
          tags: ['maintenance'], summary: 'End a running window now, or remove one to come', operationId: 'deleteMaintenanceWindow',
          parameters: [pathParameter('id', 'Window id (`M-<n>`)')],
          responses: {
            204: { description: 'Ended or removed' },
            409: { description: 'A recurring window: it lives in the config file' },
            default: ERROR_RESPONSE,
          },
        },
      },
    },
  });
}
