#!/usr/bin/env node
// Writes kubernetes-<version>.json beside this file: the definitions of Kubernetes' OpenAPI (v2)
// document that the manifests in deploy/kubernetes use, with every definition they refer to, and
// without the descriptions (they are most of the size and validate nothing).
//
//   node deploy/kubernetes/schemas/extract.mjs SWAGGER.json VERSION SOURCE
//
// SWAGGER.json is Kubernetes' api/openapi-spec/swagger.json of that version; SOURCE says where it
// came from and is written into the output. Run it again with a newer document to move the pin.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The kinds the manifests may hold (apiVersion and kind as written in YAML). */
const KINDS = [
  ['v1', 'ConfigMap'], ['v1', 'Namespace'], ['v1', 'Secret'], ['v1', 'Service'], ['v1', 'ServiceAccount'],
  ['apps/v1', 'Deployment'], ['apps/v1', 'StatefulSet'], ['policy/v1', 'PodDisruptionBudget'],
  ['rbac.authorization.k8s.io/v1', 'Role'], ['rbac.authorization.k8s.io/v1', 'RoleBinding'],
  ['rbac.authorization.k8s.io/v1', 'ClusterRole'], ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'],
];

const [swaggerFile, version, source] = process.argv.slice(2);
if (!swaggerFile || !version || !source) {
  process.stderr.write('usage: node extract.mjs SWAGGER.json VERSION SOURCE\n');
  process.exit(2);
}
const { definitions } = JSON.parse(readFileSync(swaggerFile, 'utf8'));

const gvkOf = (definition) => (definition['x-kubernetes-group-version-kind'] ?? [])
  .map(({ group, version: v, kind }) => [group ? `${group}/${v}` : v, kind]);
const roots = Object.entries(definitions)
  .filter(([, definition]) => gvkOf(definition).some(([apiVersion, kind]) => KINDS.some(([a, k]) => a === apiVersion && k === kind)))
  .map(([name]) => name);

const kept = {};
const visit = (name) => {
  if (kept[name]) return;
  kept[name] = strip(definitions[name]);
};
function strip(value) {
  if (Array.isArray(value)) return value.map(strip);
  if (!value || typeof value !== 'object') return value;
  const out = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'description') continue;
    if (key === '$ref') visit(item.replace('#/definitions/', ''));
    out[key] = strip(item);
  }
  return out;
}
roots.forEach(visit);

const sorted = Object.fromEntries(Object.keys(kept).sort().map((name) => [name, kept[name]]));
const out = join(dirname(fileURLToPath(import.meta.url)), `kubernetes-${version}.json`);
writeFileSync(out, `${JSON.stringify({ kubernetesVersion: version, source, kinds: KINDS.map(([a, k]) => `${a} ${k}`), definitions: sorted }, null, 1)}\n`);
process.stdout.write(`${out}: ${Object.keys(sorted).length} definitions for ${roots.length} kinds\n`);
