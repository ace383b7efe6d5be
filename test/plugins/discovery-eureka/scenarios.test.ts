import { discoveryScenarios } from '../../support/discovery-scenarios.js';
import { FakeEureka } from './fake-eureka.js';

// A faithful Eureka read API on loopback; names come back upper-case, as Eureka writes them.
discoveryScenarios({
  plugin: 'discovery-eureka',
  watches: false,
  line: (i) => `${i.name.toUpperCase()} http://${i.host}:${i.port}/actuator/health`,
  async start(instances) {
    const eureka = await FakeEureka.start();
    eureka.instances = instances;
    return {
      config: { url: eureka.url },
      peer: {
        async set(next) {
          eureka.instances = next;
        },
        async fail(failing) {
          eureka.failing = failing;
        },
        close: () => eureka.close(),
      },
    };
  },
});
