import { defineToken } from '../../plugin-api.js';

/**
 * A plugin's part of the OpenAPI 3.1 document served at `GET /openapi.json`, contributed under
 * `API_DESCRIPTION` at the setup step (in `create`), next to the routes it describes. The document is the merge of
 * every contribution; a test holds it equal to the router's table, so every route a plugin adds
 * needs its operation here (and an operation without a route is an error too).
 *
 * Writing one:
 * - paths are relative to the context path, in OpenAPI form: `openApiPath('/instances/:id')` gives
 *   `/instances/{id}`, and a trailing `*` becomes `{path}` (a rest of the path that may hold `/`);
 * - one operation per method the route registers (`get`, `head`, `post`, ...); an
 *   `Accept`-conditional route shares its operation with its plain twin: list both media types
 *   under its `200` response (`text/event-stream` for the streams);
 * - errors: `$ref: '#/components/responses/Error'` (the contract's `{timestamp, status, error,
 *   message, path}` body, which the document defines); shared bodies under `schemas`, referenced as
 *   `#/components/schemas/<Name>`; a name defined by two plugins is an error;
 * - authentication is not repeated per operation: `basic-auth` contributes the schemes and the
 *   document-wide `security`.
 *
 * The objects are plain OpenAPI 3.1 (JSON Schema 2020-12 for schemas); they are checked with a
 * maintained OpenAPI validator in Vigil's tests, not at run time.
 */
export interface ApiDescription {
  /** Path item objects by OpenAPI path (relative to the context path). */
  readonly paths?: Readonly<Record<string, PathItem>>;
  /** Entries of `components.schemas`. */
  readonly schemas?: Readonly<Record<string, OpenApiObject>>;
  /** Entries of `components.securitySchemes`. */
  readonly securitySchemes?: Readonly<Record<string, OpenApiObject>>;
  /** Document-wide security requirements (any one of them suffices). */
  readonly security?: readonly Readonly<Record<string, readonly string[]>>[];
  /** Tags used by the operations, with a description. */
  readonly tags?: readonly { readonly name: string; readonly description?: string }[];
}

/** An OpenAPI object: kept loose, so a plugin needs no OpenAPI typings to contribute. */
export type OpenApiObject = { readonly [key: string]: unknown };

export type OperationKey = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete' | 'options';

export type PathItem = { readonly [method in OperationKey]?: OpenApiObject } & { readonly parameters?: readonly OpenApiObject[] };

export const API_DESCRIPTION = defineToken<ApiDescription>('vigil.api-description');

/** A router pattern as an OpenAPI path: `/instances/:id/actuator/*` → `/instances/{id}/actuator/{path}`. */
export function openApiPath(pattern: string): string {
  return pattern.split('/').map((segment) => (segment === '*' ? '{path}' : segment.startsWith(':') ? `{${segment.slice(1)}}` : segment)).join('/');
}

/** The reference every operation uses for its error answers. */
export const ERROR_RESPONSE = { $ref: '#/components/responses/Error' } as const;

/** A path parameter (`in: path`, required, a string) for operations' `parameters`. */
export function pathParameter(name: string, description: string): OpenApiObject {
  return { name, in: 'path', required: true, description, schema: { type: 'string' } };
}
