import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoveryScenarios, type PeerInstance } from '../../support/discovery-scenarios.js';
import { writeAtomically } from './write.js';

const yamlOf = (instances: readonly PeerInstance[]) => instances.length === 0 ? '[]\n'
  : instances.map((i) => `- {name: ${i.name}, url: "http://${i.host}:${i.port}", metadata: ${JSON.stringify(i.metadata ?? {})}}\n`).join('');

// The real file system, watched for real: the peer is a directory and the file in it.
discoveryScenarios({
  plugin: 'discovery-file',
  watches: true,
  line: (i) => `${i.name} http://${i.host}:${i.port}/actuator/health`,
  async start(instances) {
    const dir = await mkdtemp(join(tmpdir(), 'vigil-discovery-file-'));
    const path = join(dir, 'instances.yaml');
    let current = instances;
    await writeAtomically(path, yamlOf(instances));
    return {
      config: { path },
      peer: {
        async set(next) {
          current = next;
          await writeAtomically(path, yamlOf(next));
        },
        async fail(failing) {
          await writeAtomically(path, failing ? '- {name: broken\n' : yamlOf(current));
        },
        close: () => rm(dir, { recursive: true, force: true }),
      },
    };
  },
});
