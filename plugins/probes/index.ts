import type { ServerResponse } from 'node:http';
import { LIVENESS_PATH, READINESS, READINESS_PATH, definePlugin, messageOf, type ReadinessCheck } from '../../core/plugin-api.js';
import { API_DESCRIPTION, ERROR_RESPONSE } from '../../core/kits/services/index.js';

const NO_STORE = { 'cache-control': 'no-store' };

/**
 * `probes`: Vigil's own health for orchestrators. Liveness says the process answers (a failing
 * one should be restarted); readiness says this node may take traffic: every `READINESS` check
 * holds (the kernel's phase, and what plugins such as `cluster-redis` add). Both answer in
 * Spring Boot's health format, so tools that read actuator health read these too.
 */
export default definePlugin({
  name: 'probes',
  version: '1.0.0',
  configKey: null,
  create(ctx) {
    let checks: readonly ReadinessCheck[] | undefined;
    const send = (res: ServerResponse, status: number, body: unknown) => ctx.http.sendJson(res, status, body, NO_STORE);
    ctx.http.route('GET', LIVENESS_PATH, (_req, res) => send(res, 200, { status: 'UP' }), { action: 'probes.read' });
    ctx.http.route('GET', READINESS_PATH, (_req, res) => {
      // Contributions are complete once every plugin has set up, before anything is served.
      checks ??= ctx.services.collect(READINESS);
      const components: Record<string, unknown> = {};
      let ready = true;
      for (const check of checks) {
        let state;
        try {
          state = check.check();
        } catch (error) {
          state = { ready: false as const, reason: `the check failed: ${messageOf(error)}` };
        }
        ready &&= state.ready;
        components[check.name] = state.ready ? { status: 'UP' } : { status: 'OUT_OF_SERVICE', details: { reason: state.reason } };
      }
      send(res, ready ? 200 : 503, { status: ready ? 'UP' : 'OUT_OF_SERVICE', components });
    }, { action: 'probes.read' });
    const health = (name: string) => ({
      type: 'object', required: ['status'],
      properties: { status: { enum: name === 'liveness' ? ['UP'] : ['UP', 'OUT_OF_SERVICE'] }, ...(name === 'readiness' ? { components: { type: 'object', additionalProperties: { type: 'object' } } } : {}) },
    });
    ctx.services.contribute(API_DESCRIPTION, {
      paths: {
        [LIVENESS_PATH]: {
          get: {
            tags: ['ops'], summary: 'Liveness: the process answers', operationId: 'liveness',
            responses: { 200: { description: 'Alive', content: { 'application/json': { schema: health('liveness') } } }, default: ERROR_RESPONSE },
          },
        },
        [READINESS_PATH]: {
          get: {
            tags: ['ops'], summary: 'Readiness: this node may take traffic', operationId: 'readiness',
            description: 'Not ready while starting, while stopping, and while a plugin says so (cluster-redis: Redis cannot be reached); each check is a component.',
            responses: {
              200: { description: 'Ready', content: { 'application/json': { schema: health('readiness') } } },
              503: { description: 'Not ready; the components say why', content: { 'application/json': { schema: health('readiness') } } },
              default: ERROR_RESPONSE,
            },
          },
        },
      },
    });
  },
});
