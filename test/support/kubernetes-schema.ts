import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { repoRoot } from './paths.js';

/**
 * Kubernetes' OpenAPI definitions of a pinned version, vendored in deploy/kubernetes/schemas
 * (their source named in the file), as a strict validator: like kubeconform's `-strict`, a field
 * the schema does not name is an error (a typo such as `runAsNonroot` would otherwise pass), and
 * so are a wrong type, a missing required field and a value outside an enum.
 */
export const KUBERNETES_VERSION = '1.32.2';

interface Vendored {
  readonly kubernetesVersion: string;
  readonly source: string;
  readonly definitions: Record<string, Definition>;
}

interface Definition {
  type?: string;
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  [key: string]: unknown;
}

/** What the API server accepts for these types though the document calls them strings. */
const NUMBER_OR_STRING = { oneOf: [{ type: 'string' }, { type: 'integer' }] };
const LOOSE_TYPES: Record<string, unknown> = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': NUMBER_OR_STRING,
  // A quantity in YAML is often a bare number (`cpu: 1`).
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { oneOf: [{ type: 'string' }, { type: 'number' }] },
};

export interface SchemaProblem {
  readonly object: string;
  readonly problems: readonly string[];
}

export class KubernetesSchemas {
  readonly version: string;
  readonly source: string;
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(file = join(repoRoot, 'deploy', 'kubernetes', 'schemas', `kubernetes-${KUBERNETES_VERSION}.json`)) {
    const vendored = JSON.parse(readFileSync(file, 'utf8')) as Vendored;
    this.version = vendored.kubernetesVersion;
    this.source = vendored.source;
    const definitions: Record<string, unknown> = {};
    for (const [name, definition] of Object.entries(vendored.definitions)) definitions[name] = LOOSE_TYPES[name] ?? strict(definition);
    // Formats (int32, date-time, byte) are not checked; the API server checks them anyway.
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'kubernetes', definitions });
    for (const [name, definition] of Object.entries(vendored.definitions)) {
      for (const { group, version, kind } of definition['x-kubernetes-group-version-kind'] ?? []) {
        this.#validators.set(`${group ? `${group}/${version}` : version} ${kind}`, ajv.compile({ $ref: `kubernetes#/definitions/${name}` }));
      }
    }
  }

  /** The problems of one object, each as `path: message`; none when it is valid. */
  problemsOf(object: { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown } }): string[] {
    const validate = this.#validators.get(`${String(object.apiVersion)} ${String(object.kind)}`);
    if (!validate) return [`${String(object.apiVersion)} ${String(object.kind)}: not a kind of the vendored schemas`];
    if (validate(object)) return [];
    return (validate.errors ?? []).map((error) => `${error.instancePath || '/'}: ${error.message ?? error.keyword}${error.keyword === 'additionalProperties' ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})` : ''}`);
  }
}

/** Objects with named properties accept no other (`x-kubernetes-preserve-unknown-fields` aside). */
function strict(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strict);
  if (!value || typeof value !== 'object') return value;
  const definition = value as Definition;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(definition)) {
    out[key] = key === 'properties' ? Object.fromEntries(Object.entries(item as Record<string, unknown>).map(([name, schema]) => [name, strict(schema)])) : strict(item);
  }
  if ((out.$ref as string | undefined)?.startsWith('#/definitions/')) out.$ref = `kubernetes${String(out.$ref)}`;
  if (definition.properties && definition.additionalProperties === undefined && !definition['x-kubernetes-preserve-unknown-fields']) out.additionalProperties = false;
  return out;
}
