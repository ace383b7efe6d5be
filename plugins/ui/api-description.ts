import { type Services } from '../../core/plugin-api.js';
import { API_DESCRIPTION, ERROR_RESPONSE, pathParameter } from '../../core/kits/services/index.js';

/** ui's routes in the OpenAPI document. */
export function uiApi(services: Services): void {
  const page = (method: string) => ({
    tags: ['ui'], summary: 'The dashboard page', operationId: `${method}Dashboard`,
    description: 'An HTML page; a client that accepts only JSON gets 406. Without the trailing slash after a context path: 308 to it.',
    responses: { 200: { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } }, 308: { description: 'Redirect to the path with a slash' }, default: ERROR_RESPONSE },
  });
  const file = (method: string) => ({
    tags: ['ui'], summary: 'A file of the dashboard', operationId: `${method}DashboardFile`,
    parameters: [pathParameter('path', 'The file below ui/')],
    responses: { 200: { description: 'The file', content: { '*/*': { schema: {} } } }, default: ERROR_RESPONSE },
  });
  services.contribute(API_DESCRIPTION, {
    tags: [{ name: 'ui', description: 'The web dashboard' }],
    paths: {
      '/': { get: page('get'), head: page('head') },
      '/ui/{path}': { get: file('get'), head: file('head') },
      '/ui/about': {
        get: {
          tags: ['ui'], summary: 'What the About page shows: Vigil\'s version, the loaded plugins, the effective config with secrets masked', operationId: 'about',
          responses: { 200: { description: 'The daemon described', content: { 'application/json': { schema: { type: 'object' } } } }, default: ERROR_RESPONSE },
        },
      },
      '/ui/session': {
        get: {
          tags: ['ui'], summary: 'Who is signed in, as the dashboard\'s header shows it, and where to sign in and out', operationId: 'dashboardSession',
          responses: {
            200: {
              description: 'The signed-in principal (null names without authentication)',
              content: { 'application/json': { schema: { type: 'object', required: ['name', 'via', 'signIn', 'signOut', 'audit'], properties: {
                name: { type: ['string', 'null'] }, via: { type: ['string', 'null'] }, signIn: { type: ['string', 'null'] }, signOut: { type: ['string', 'null'] }, audit: { type: ['string', 'null'], description: 'GET /audit when the audit trail is loaded' },
              } } } },
            },
            default: ERROR_RESPONSE,
          },
        },
      },
    },
  });
}
