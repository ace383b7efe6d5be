import { discoveryScenarios } from '../../support/discovery-scenarios.js';
import { FakeConsul, consulInstance } from './fake-consul.js';

// Consul's catalog and health API with real blocking queries, on loopback.
discoveryScenarios({
  plugin: 'discovery-consul',
  watches: true,
  line: (i) => `${i.name} http://${i.host}:${i.port}/actuator/health`,
  async start(instances) {
    const consul = await FakeConsul.start();
    consul.set(instances.map(consulInstance));
    return {
      config: { url: consul.url },
      peer: {
        async set(next) {
          consul.set(next.map(consulInstance));
        },
        async fail(failing) {
          consul.failing = failing;
        },
        close: () => consul.close(),
      },
    };
  },
});
