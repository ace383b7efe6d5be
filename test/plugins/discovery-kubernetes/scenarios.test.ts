import { discoveryScenarios } from '../../support/discovery-scenarios.js';
import { FakeKubeApi } from './fake-kube-api.js';
import { NAMESPACE, SELECTOR, applyInstances } from './fixtures.js';

// A faithful API server on loopback: list, then watch with bookmarks; Services joined with their EndpointSlices.
discoveryScenarios({
  plugin: 'discovery-kubernetes',
  watches: true,
  line: (i) => `${i.name} http://${i.host}:${i.port}/actuator/health`,
  async start(instances) {
    const api = await FakeKubeApi.start();
    api.token = 'sa-token';
    applyInstances(api, instances);
    return {
      config: { 'api-url': api.url, token: 'sa-token', namespaces: [NAMESPACE], 'label-selector': SELECTOR },
      peer: {
        async set(next) {
          applyInstances(api, next);
        },
        async fail(failing) {
          api.fail(failing);
        },
        close: () => api.close(),
      },
    };
  },
});
