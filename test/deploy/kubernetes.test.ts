import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { prepare } from '../../core/prepare.js';
import { builtinPlugins } from '../../bin/builtin-plugins.js';
import { KubernetesSchemas } from '../support/kubernetes-schema.js';
import { repoRoot } from '../support/paths.js';
import { checkoutManifest } from '../support/release-package.js';
import { requireBinary } from '../support/require-binary.js';

/**
 * Issue 29, item 3: both kustomize overlays render with `kubectl kustomize` (offline), every object
 * they hold is valid against the vendored Kubernetes OpenAPI schemas, and they are what a
 * production deployment needs: probes, a grace period covering the shutdown, the restricted
 * securityContext, sized resources, a PodDisruptionBudget, least RBAC, the config Vigil accepts.
 */
const { test, path: kubectl } = requireBinary('kubectl', 'apt-get install kubectl');
const schemas = new KubernetesSchemas();
const version = (JSON.parse(checkoutManifest()) as { version: string }).version;

type K8sObject = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- rendered YAML, asserted field by field

function render(overlay: string): K8sObject[] {
  const result = spawnSync(kubectl, ['kustomize', join(repoRoot, 'deploy', 'kubernetes', 'overlays', overlay)], { encoding: 'utf8' });
  assert.is(result.status, 0, result.stderr);
  return parseAllDocuments(result.stdout).map((document) => document.toJS() as K8sObject).filter(Boolean);
}

const only = (objects: K8sObject[], kind: string, name?: string): K8sObject => {
  const found = objects.filter((object) => object.kind === kind && (name === undefined || object.metadata.name === name));
  assert.is(found.length, 1, `one ${kind}${name ? ` ${name}` : ''}`);
  return found[0]!;
};
const vigilContainer = (deployment: K8sObject): K8sObject => deployment.spec.template.spec.containers.find((c: K8sObject) => c.name === 'vigil');
const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);

async function preparedConfig(objects: K8sObject[], env: Record<string, string>) {
  const deployment = only(objects, 'Deployment', 'vigil');
  const configMapName = deployment.spec.template.spec.volumes.find((v: K8sObject) => v.name === 'config').configMap.name;
  const text = only(objects, 'ConfigMap', configMapName).data['registry.config.yaml'] as string;
  const prepared = await prepare({ config: parseYaml(text) as Record<string, unknown>, cwd: repoRoot, env, builtins: builtinPlugins });
  return { text, prepared };
}

test('the vendored schemas are strict: an unknown field, a wrong type and a missing required field are each a problem', () => {
  const deployment = (podSecurity: Record<string, unknown>, replicas: unknown, containers: unknown) => ({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' },
    spec: { replicas, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { securityContext: podSecurity, containers } } },
  });
  const container = [{ name: 'x', image: 'x', ports: [{ containerPort: 8080 }], resources: { limits: { cpu: 1, memory: '1Gi' } } }];
  assert.equal(schemas.problemsOf(deployment({ runAsNonRoot: true }, 1, container)), []);
  assert.match(schemas.problemsOf(deployment({ runAsNonroot: true }, 1, container)).join('\n'), '/spec/template/spec/securityContext: must NOT have additional properties (runAsNonroot)');
  assert.match(schemas.problemsOf(deployment({}, 'two', container)).join('\n'), '/spec/replicas: must be integer');
  assert.match(schemas.problemsOf(deployment({}, 1, [{ image: 'x' }])).join('\n'), "/spec/template/spec/containers/0: must have required property 'name'");
  assert.equal(schemas.problemsOf({ apiVersion: 'v1', kind: 'Pod' }), ['v1 Pod: not a kind of the vendored schemas']);
  assert.is(schemas.version, '1.32.2');
  assert.match(schemas.source, 'kubernetes-client/python');
});

for (const overlay of ['single', 'cluster']) {
  test(`overlays/${overlay} renders with kubectl kustomize and every object is valid against the Kubernetes ${schemas.version} schemas`, () => {
    const objects = render(overlay);
    assert.ok(objects.length >= 8, `${objects.length} objects`);
    const problems = objects.map((object) => ({ object: `${object.kind} ${object.metadata?.name}`, problems: schemas.problemsOf(object) })).filter((entry) => entry.problems.length > 0);
    assert.equal(problems, []);
    for (const object of objects) {
      if (object.kind !== 'Namespace') assert.is(object.metadata.namespace, 'vigil', `${object.kind} ${object.metadata.name} in the vigil namespace`);
    }
  });

  test(`overlays/${overlay}: probes on /health/liveness and /health/readiness, a grace period covering preStop and shutdown-timeout, the image of this release`, async () => {
    const objects = render(overlay);
    const deployment = only(objects, 'Deployment', 'vigil');
    const pod = deployment.spec.template.spec;
    const container = vigilContainer(deployment);
    const { prepared } = await preparedConfig(objects, { POD_NAME: 'vigil-5d8f7c9b4-x2x7q', POD_NAMESPACE: 'vigil', REDIS_URL: 'redis://:secret@vigil-redis:6379/0', CLUSTER_SECRET_KEY: 'a-secret-key-of-the-secret' });
    const http = container.ports.find((port: K8sObject) => port.name === 'http');
    assert.is(http.containerPort, prepared.settings.port, 'the port Vigil listens on');
    assert.equal([container.startupProbe.httpGet, container.livenessProbe.httpGet, container.readinessProbe.httpGet],
      [{ path: '/health/liveness', port: 'http' }, { path: '/health/liveness', port: 'http' }, { path: '/health/readiness', port: 'http' }]);
    assert.ok(prepared.plugins.some((item) => item.plugin.name === 'probes'), 'the probes plugin serves them');
    const preStop = container.lifecycle.preStop.exec.command as string[];
    assert.equal(preStop.slice(0, 1), ['sleep']);
    const neededSeconds = Number(preStop[1]) + prepared.settings['shutdown-timeout'] / 1000 + 1;
    assert.ok(pod.terminationGracePeriodSeconds >= neededSeconds, `terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds} ≥ ${neededSeconds}`);
    assert.is(container.image, `vigil:${version}`);
    assert.equal(container.args, ['--config', '/etc/vigil/registry.config.yaml']);
  });

  test(`overlays/${overlay}: every pod non-root with a read-only root filesystem, no capability, seccomp RuntimeDefault, and requests and limits`, () => {
    const workloads = render(overlay).filter((object) => object.kind === 'Deployment' || object.kind === 'StatefulSet');
    assert.equal(workloads.map((w) => w.kind), overlay === 'cluster' ? ['Deployment', 'StatefulSet'] : ['Deployment']);
    for (const workload of workloads) {
      const pod = workload.spec.template.spec;
      const where = `${workload.kind} ${workload.metadata.name}`;
      assert.is(pod.securityContext.runAsNonRoot, true, where);
      assert.ok(Number.isInteger(pod.securityContext.runAsUser) && pod.securityContext.runAsUser > 0, where);
      assert.equal(pod.securityContext.seccompProfile, { type: 'RuntimeDefault' }, where);
      for (const container of pod.containers) {
        assert.equal([container.securityContext.allowPrivilegeEscalation, container.securityContext.readOnlyRootFilesystem, container.securityContext.capabilities],
          [false, true, { drop: ['ALL'] }], `${where} ${container.name}`);
        for (const side of ['requests', 'limits']) {
          assert.ok(container.resources[side]?.cpu && container.resources[side]?.memory, `${where} ${container.name} ${side}`);
        }
      }
    }
    const vigil = workloads[0]!.spec.template.spec.securityContext;
    assert.equal([vigil.runAsUser, vigil.runAsGroup], [10001, 10001], 'the image\'s user (deploy/Dockerfile)');
  });

  test(`overlays/${overlay}: a PodDisruptionBudget of Vigil's pods only, a ServiceAccount with get/list/watch of Services and EndpointSlices in its namespace and nothing cluster-wide`, () => {
    const objects = render(overlay);
    const deployment = only(objects, 'Deployment', 'vigil');
    const podLabels = deployment.spec.template.metadata.labels;
    const pdb = only(objects, 'PodDisruptionBudget');
    assert.ok(matches(pdb.spec.selector.matchLabels, podLabels), 'it selects Vigil\'s pods');
    assert.is(pdb.spec.maxUnavailable, 1);
    for (const other of objects.filter((object) => object.kind === 'StatefulSet')) {
      assert.not.ok(matches(pdb.spec.selector.matchLabels, other.spec.template.metadata.labels), `not ${other.metadata.name}'s`);
    }
    assert.equal(objects.filter((object) => /^Cluster/.test(object.kind)).map((object) => object.kind), []);
    const account = only(objects, 'ServiceAccount');
    assert.is(deployment.spec.template.spec.serviceAccountName, account.metadata.name);
    assert.is(deployment.spec.template.spec.automountServiceAccountToken, true);
    const role = only(objects, 'Role');
    assert.equal(role.rules, [
      { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] },
    ]);
    const binding = only(objects, 'RoleBinding');
    assert.equal(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name });
    assert.equal(binding.subjects, [{ kind: 'ServiceAccount', name: account.metadata.name, namespace: account.metadata.namespace }]);
    const service = only(objects, 'Service', 'vigil');
    assert.ok(matches(service.spec.selector, podLabels));
  });

  test(`overlays/${overlay}: the config in a ConfigMap passes Vigil's own check; secrets come from the Secret as environment variables, referenced as \${NAME}`, async () => {
    const objects = render(overlay);
    const container = vigilContainer(only(objects, 'Deployment', 'vigil'));
    const envNames = new Set((container.env as K8sObject[]).map((entry) => entry.name));
    const { text, prepared } = await preparedConfig(objects, { POD_NAME: 'vigil-5d8f7c9b4-x2x7q', POD_NAMESPACE: 'vigil', REDIS_URL: 'redis://:secret@vigil-redis:6379/0', CLUSTER_SECRET_KEY: 'a-secret-key-of-the-secret' });
    assert.is(prepared.settings['log-format'], 'json');
    assert.ok(prepared.plugins.some((item) => item.plugin.name === 'discovery-kubernetes'));
    const values = text.split('\n').filter((line) => !line.trimStart().startsWith('#')).join('\n');
    const references = [...values.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]!);
    assert.equal(references.filter((name) => !envNames.has(name)), [], 'every ${NAME} of the config is set in the pod');
    assert.equal(container.envFrom, [{ secretRef: { name: 'vigil-secrets', optional: true } }]);
    assert.equal(objects.filter((object) => object.kind === 'Secret'), [], 'no Secret in the manifests: it is made apart from them');
  });
}

test('overlays/single: one replica, the registry in memory', async () => {
  const objects = render('single');
  assert.is(only(objects, 'Deployment', 'vigil').spec.replicas, 1);
  assert.equal(objects.filter((object) => object.kind === 'StatefulSet'), []);
  const { prepared } = await preparedConfig(objects, { POD_NAME: 'vigil-0' });
  assert.not.ok(prepared.plugins.some((item) => item.plugin.name === 'cluster-redis'));
});

test('overlays/cluster: 3 replicas on cluster-redis, node-id from the pod name, a Redis StatefulSet with AOF on a PersistentVolumeClaim', async () => {
  const objects = render('cluster');
  const deployment = only(objects, 'Deployment', 'vigil');
  assert.is(deployment.spec.replicas, 3);
  const container = vigilContainer(deployment);
  const env = Object.fromEntries((container.env as K8sObject[]).map((entry) => [entry.name, entry]));
  assert.equal(env.POD_NAME.valueFrom, { fieldRef: { fieldPath: 'metadata.name' } });
  const podName = 'vigil-5d8f7c9b4-x2x7q';
  const { prepared } = await preparedConfig(objects, { POD_NAME: podName, REDIS_URL: 'redis://:secret@vigil-redis:6379/0', CLUSTER_SECRET_KEY: 'a-secret-key-of-the-secret' });
  const cluster = prepared.plugins.find((item) => item.plugin.name === 'cluster-redis');
  assert.ok(cluster, 'cluster-redis loaded');
  assert.is((cluster.config as { 'node-id': string })['node-id'], podName);

  const redis = only(objects, 'StatefulSet', 'vigil-redis');
  const redisContainer = redis.spec.template.spec.containers[0];
  const args = (redisContainer.args as string[]).join(' ');
  assert.match(args, '--appendonly yes');
  assert.match(args, '--appendfsync everysec');
  assert.match(args, '--requirepass $(REDIS_PASSWORD)');
  assert.equal(redisContainer.env, [{ name: 'REDIS_PASSWORD', valueFrom: { secretKeyRef: { name: 'vigil-secrets', key: 'REDIS_PASSWORD' } } }]);
  const claim = redis.spec.volumeClaimTemplates[0];
  assert.equal(claim.spec.accessModes, ['ReadWriteOnce']);
  assert.equal(redisContainer.volumeMounts, [{ name: claim.metadata.name, mountPath: '/data' }]);
  const headless = only(objects, 'Service', redis.spec.serviceName);
  assert.is(headless.spec.clusterIP, 'None');
  assert.equal(env.REDIS_PASSWORD.valueFrom, { secretKeyRef: { name: 'vigil-secrets', key: 'REDIS_PASSWORD' } });
  assert.is(env.REDIS_URL.value, `redis://:$(REDIS_PASSWORD)@${headless.metadata.name}:6379/0`);
  const names = (container.env as K8sObject[]).map((entry) => entry.name);
  assert.ok(names.indexOf('REDIS_PASSWORD') < names.indexOf('REDIS_URL'), 'defined before it is expanded');
  assert.is(deployment.spec.template.spec.topologySpreadConstraints[0].topologyKey, 'kubernetes.io/hostname');
});

test.run();
