import { API_DESCRIPTION } from '../contract/api-description.js';
import { ERROR_RESPONSE } from '../contract/api-description.js';
import type { Services } from '../contract/basics.js';
import { ROLES } from '../contract/access.js';

/** `GET /access/me` in the OpenAPI document. */
export function accessApi(services: Services): void {
  const grant = {
    type: 'object', required: ['role', 'applications'],
    properties: { role: { enum: [...ROLES] }, applications: { type: 'array', items: { type: 'string' }, description: 'globs on the application name' } },
  };
  services.contribute(API_DESCRIPTION, {
    tags: [{ name: 'access', description: 'Who is calling and what it may do' }],
    paths: {
      '/access/me': {
        get: {
          tags: ['access'], summary: 'The caller and its grants', operationId: 'accessMe',
          responses: {
            200: {
              description: 'The caller (anonymous with admin over everything when no authentication plugin is loaded)',
              content: { 'application/json': { schema: { type: 'object', required: ['name', 'kind', 'via', 'groups', 'grants', 'sensitiveEndpoints', 'adminEndpoints'], properties: {
                name: { type: 'string' }, kind: { enum: ['user', 'token', 'anonymous'] }, via: { enum: ['basic', 'token', 'oidc', null] },
                groups: { type: 'array', items: { type: 'string' } }, grants: { type: 'array', items: grant },
                sensitiveEndpoints: { type: 'array', items: { type: 'string' }, description: 'actuator endpoints only admin may read' },
                adminEndpoints: { type: 'array', items: { type: 'string' }, description: 'actuator endpoints only admin may write to' },
              } } } },
            },
            default: ERROR_RESPONSE,
          },
        },
      },
    },
  });
}
