import type { ApiDescription, OpenApiObject, OperationKey } from '../../core/kits/services/index.js';
import { ERROR_RESPONSE_OBJECT, KERNEL_SCHEMAS } from './kernel-schemas.js';

const OPERATIONS: readonly OperationKey[] = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'];

export interface DocumentInput {
  readonly version: string;
  /** `''` or `/admin`: the server URL the paths are relative to. */
  readonly contextPath: string;
  /** In `plugins:` order. */
  readonly contributions: readonly ApiDescription[];
}

type Mutable = Record<string, unknown>;

/**
 * Merges every plugin's description into one OpenAPI 3.1 document. Two plugins may describe the
 * same operation (a stream and its JSON twin at one path): their responses' media types are
 * joined, their descriptions too, and the other fields come from the first. A schema or security
 * scheme defined twice differently is a problem, as is a `$ref` to nothing.
 */
export function buildDocument(input: DocumentInput): { document: OpenApiObject; problems: string[] } {
  const problems: string[] = [];
  const paths: Record<string, Mutable> = {};
  const schemas: Mutable = { ...KERNEL_SCHEMAS };
  const securitySchemes: Mutable = {};
  const security: unknown[] = [];
  const tags = new Map<string, { name: string; description?: string }>();
  const define = (into: Mutable, kind: string, name: string, value: unknown) => {
    if (into[name] !== undefined && JSON.stringify(into[name]) !== JSON.stringify(value)) problems.push(`${kind} "${name}" is defined twice, differently`);
    into[name] ??= value;
  };
  for (const part of input.contributions) {
    for (const [name, schema] of Object.entries(part.schemas ?? {})) define(schemas, 'schema', name, schema);
    for (const [name, scheme] of Object.entries(part.securitySchemes ?? {})) define(securitySchemes, 'security scheme', name, scheme);
    security.push(...(part.security ?? []));
    for (const tag of part.tags ?? []) if (!tags.has(tag.name)) tags.set(tag.name, tag);
    for (const [path, item] of Object.entries(part.paths ?? {})) {
      const target = (paths[path] ??= {});
      for (const [key, value] of Object.entries(item)) {
        if (!OPERATIONS.includes(key as OperationKey)) {
          target[key] ??= value;
          continue;
        }
        target[key] = target[key] === undefined ? value : mergeOperations(target[key] as OpenApiObject, value as OpenApiObject);
      }
    }
  }
  const document: OpenApiObject = {
    openapi: '3.1.0',
    info: {
      title: 'Vigil',
      version: input.version,
      description: 'Instance registry and monitoring daemon, wire-compatible with the Spring Boot Admin server. Every path is below the server URL (the context path). Errors share one JSON body (#/components/schemas/Error).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: input.contextPath || '/' }],
    ...(tags.size > 0 ? { tags: [...tags.values()] } : {}),
    ...(security.length > 0 ? { security } : {}),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      schemas,
      responses: { Error: ERROR_RESPONSE_OBJECT },
      ...(Object.keys(securitySchemes).length > 0 ? { securitySchemes } : {}),
    },
  };
  problems.push(...danglingReferences(document));
  return { document, problems };
}

function mergeOperations(first: OpenApiObject, second: OpenApiObject): OpenApiObject {
  const responses: Record<string, Mutable> = {};
  for (const source of [first.responses, second.responses] as (Record<string, Mutable> | undefined)[]) {
    for (const [status, response] of Object.entries(source ?? {})) {
      const existing = responses[status];
      if (!existing) {
        responses[status] = response;
        continue;
      }
      if (existing.content && response.content) {
        responses[status] = { ...existing, content: { ...(existing.content as Mutable), ...(response.content as Mutable) } };
      }
    }
  }
  const descriptions = [first.description, second.description].filter((text): text is string => typeof text === 'string');
  const parameters = new Map<string, unknown>();
  for (const parameter of [...((first.parameters ?? []) as Mutable[]), ...((second.parameters ?? []) as Mutable[])]) {
    parameters.set(`${String(parameter.in)} ${String(parameter.name)}`, parameters.get(`${String(parameter.in)} ${String(parameter.name)}`) ?? parameter);
  }
  return {
    ...first,
    ...(descriptions.length > 0 ? { description: descriptions.join('\n\n') } : {}),
    ...(parameters.size > 0 ? { parameters: [...parameters.values()] } : {}),
    responses,
  };
}

/** Every `$ref` must point at something the document defines. */
function danglingReferences(document: OpenApiObject): string[] {
  const problems = new Set<string>();
  const resolves = (ref: string) => ref.startsWith('#/') && ref.slice(2).split('/').reduce<unknown>((node, key) => (node as Mutable | undefined)?.[key], document) !== undefined;
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && !resolves(value)) problems.add(`$ref "${value}" points at nothing`);
        else walk(value);
      }
    }
  };
  walk(document);
  return [...problems];
}
