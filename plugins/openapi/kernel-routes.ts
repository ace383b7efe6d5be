import { ROLES } from '../../core/plugin-api.js';
import { ERROR_RESPONSE, type ApiDescription } from '../../core/kits/services/index.js';

const GRANT = {
  type: 'object', required: ['role', 'applications'],
  properties: { role: { enum: [...ROLES] }, applications: { type: 'array', items: { type: 'string' }, description: 'globs on the application name' } },
};

/**
 * The kernel's own route, `GET /access/me`, which is there whatever plugins are loaded: the
 * document describes it as it defines the kernel's schemas, before every plugin's part.
 */
export const KERNEL_ROUTES: ApiDescription = {
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
              groups: { type: 'array', items: { type: 'string' } }, grants: { type: 'array', items: GRANT },
              sensitiveEndpoints: { type: 'array', items: { type: 'string' }, description: 'actuator endpoints only admin may read' },
              adminEndpoints: { type: 'array', items: { type: 'string' }, description: 'actuator endpoints only admin may write to' },
            } } } },
          },
          default: ERROR_RESPONSE,
        },
      },
    },
  },
};
