import { type Services } from '../../core/plugin-api.js';
import { API_DESCRIPTION, ERROR_RESPONSE, pathParameter } from '../../core/kits/services/index.js';

const json = (schema: unknown) => ({ 'application/json': { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const ID = pathParameter('id', 'Instance id (12 hex characters)');
const NAME = pathParameter('name', 'Application name');

/** rest-api's routes in the OpenAPI document; the domain schemas are the kernel's. */
export function restApi(services: Services): void {
  services.contribute(API_DESCRIPTION, {
    tags: [{ name: 'registry', description: 'Instances and applications (the Spring Boot Admin API)' }],
    paths: {
      '/instances': {
        post: {
          tags: ['registry'], summary: 'Register an instance, or re-register it (the client heartbeat)', operationId: 'register',
          requestBody: { required: true, content: json(ref('Registration')) },
          responses: {
            201: {
              description: 'Registered (the same id for the same healthUrl)',
              headers: { Location: { description: 'The instance\'s path', schema: { type: 'string' } } },
              content: json({ type: 'object', required: ['id'], properties: { id: { type: 'string' } } }),
            },
            default: ERROR_RESPONSE,
          },
        },
        get: {
          tags: ['registry'], summary: 'Registered instances', operationId: 'listInstances',
          parameters: [{ name: 'name', in: 'query', required: false, description: 'Only the instances of this application', schema: { type: 'string' } }],
          responses: { 200: { description: 'The instances', content: json({ type: 'array', items: ref('Instance') }) }, default: ERROR_RESPONSE },
        },
      },
      '/instances/events': {
        get: {
          tags: ['registry'], summary: 'The event history held', operationId: 'listEvents',
          responses: { 200: { description: 'Every held event, oldest first', content: json({ type: 'array', items: ref('InstanceEvent') }) }, default: ERROR_RESPONSE },
        },
      },
      '/instances/{id}': {
        get: {
          tags: ['registry'], summary: 'One registered instance', operationId: 'getInstance', parameters: [ID],
          responses: { 200: { description: 'The instance', content: json(ref('Instance')) }, default: ERROR_RESPONSE },
        },
        delete: {
          tags: ['registry'], summary: 'Deregister an instance', operationId: 'deregister', parameters: [ID],
          responses: { 204: { description: 'Deregistered (again 204 while its history is held)' }, default: ERROR_RESPONSE },
        },
      },
      '/instances/{id}/health-groups': {
        get: {
          tags: ['registry'], summary: 'The health groups of an instance (the `groups` of its last health answer)', operationId: 'healthGroups', parameters: [ID],
          responses: { 200: { description: 'Distinct group names; [] when none', content: json({ type: 'array', items: { type: 'string' } }) }, default: ERROR_RESPONSE },
        },
      },
      '/applications': {
        get: {
          tags: ['registry'], summary: 'Registered instances grouped by application, with an aggregated status', operationId: 'listApplications',
          responses: { 200: { description: 'The applications', content: json({ type: 'array', items: ref('Application') }) }, default: ERROR_RESPONSE },
        },
        post: {
          tags: ['registry'], summary: 'Ask for every instance to be checked and detected again, and discovery to run', operationId: 'refresh',
          responses: { 200: { description: 'Asked (empty body)' }, default: ERROR_RESPONSE },
        },
      },
      '/applications/{name}': {
        get: {
          tags: ['registry'], summary: 'One application', operationId: 'getApplication', parameters: [NAME],
          responses: { 200: { description: 'The application', content: json(ref('Application')) }, default: ERROR_RESPONSE },
        },
        delete: {
          tags: ['registry'], summary: 'Deregister every instance of an application', operationId: 'deregisterApplication', parameters: [NAME],
          responses: { 204: { description: 'Deregistered' }, default: ERROR_RESPONSE },
        },
      },
    },
  });
}
