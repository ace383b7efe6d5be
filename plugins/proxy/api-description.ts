import { type HttpMethod, type Services } from '../../core/plugin-api.js';
import { API_DESCRIPTION, ERROR_RESPONSE, pathParameter, type OperationKey, type PathItem } from '../../core/kits/services/index.js';

const ID = pathParameter('id', 'Instance id (12 hex characters)');
const NAME = pathParameter('name', 'Application name');
const REST = pathParameter('path', 'A detected endpoint id, then the rest of the path to append to its URL (may contain /)');

/** One operation per proxied method; a POST, PUT or PATCH body is forwarded as it comes. */
function item(methods: readonly HttpMethod[], make: (method: HttpMethod) => Record<string, unknown>): PathItem {
  return Object.fromEntries(methods.map((method) => [method.toLowerCase() as OperationKey, make(method)]));
}

/** proxy's routes in the OpenAPI document. */
export function proxyApi(services: Services, methods: readonly HttpMethod[]): void {
  const body = (method: HttpMethod) => (['POST', 'PUT', 'PATCH'].includes(method) ? { requestBody: { required: false, content: { '*/*': { schema: {} } } } } : {});
  const instance = (withRest: boolean) => (method: HttpMethod) => ({
    tags: ['proxy'],
    summary: withRest ? `${method} on an instance's actuator endpoint` : 'Without an endpoint: always 404',
    operationId: `${method.toLowerCase()}InstanceActuator${withRest ? '' : 'Root'}`,
    parameters: withRest ? [ID, REST] : [ID],
    ...(withRest ? body(method) : {}),
    responses: {
      ...(withRest ? { 200: { description: 'The instance\'s answer, streamed (any status it sends is passed on)', content: { '*/*': { schema: {} } } } } : {}),
      default: { ...ERROR_RESPONSE },
    },
  });
  const fanOut = (withRest: boolean) => (method: HttpMethod) => ({
    tags: ['proxy'],
    summary: withRest ? `${method} on the endpoint of every instance of an application` : 'Without an endpoint: always 404',
    operationId: `${method.toLowerCase()}ApplicationActuator${withRest ? '' : 'Root'}`,
    parameters: withRest ? [NAME, REST] : [NAME],
    ...(withRest ? body(method) : {}),
    responses: {
      ...(withRest ? {
        200: {
          description: 'One result per instance. An answer left out because the fan-out\'s answers reached proxy.fan-out-max-bytes is status 502 with cut: true and a message. Beyond proxy.max-concurrent-fan-outs the request is refused with 503 and Retry-After.',
          content: {
            'application/json': {
              schema: {
                type: 'array',
                items: { type: 'object', required: ['instanceId', 'status'], properties: { instanceId: { type: 'string' }, status: { type: 'integer' }, body: {}, contentType: { type: ['string', 'null'] }, cut: { type: 'boolean' }, message: { type: 'string' } } },
              },
            },
          },
        },
      } : {}),
      default: ERROR_RESPONSE,
    },
  });
  services.contribute(API_DESCRIPTION, {
    tags: [{ name: 'proxy', description: 'Calls to instances\' actuator endpoints' }],
    paths: {
      '/instances/{id}/actuator': item(methods, instance(false)),
      '/instances/{id}/actuator/{path}': item(methods, instance(true)),
      '/applications/{name}/actuator': item(methods, fanOut(false)),
      '/applications/{name}/actuator/{path}': item(methods, fanOut(true)),
    },
  });
}
