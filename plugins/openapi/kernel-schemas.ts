import type { OpenApiObject } from '../../core/kits/services/index.js';

const STATUS = { type: 'string', description: 'DOWN, OUT_OF_SERVICE, OFFLINE, UNKNOWN, RESTRICTED, UP, or a status an instance reports', examples: ['UP'] };
const URL = { type: 'string', format: 'uri' };
const NULLABLE_URL = { type: ['string', 'null'], format: 'uri' };

/**
 * The schemas of the kernel's own values, which every plugin may reference (the error body and
 * the domain: core/store/types.ts as the JSON views write it). The document always defines them.
 */
export const KERNEL_SCHEMAS: Readonly<Record<string, OpenApiObject>> = {
  Error: {
    type: 'object',
    description: 'Every error answer, 404 included',
    required: ['timestamp', 'status', 'error', 'message', 'path'],
    properties: {
      timestamp: { type: 'string', format: 'date-time' },
      status: { type: 'integer', examples: [404] },
      error: { type: 'string', description: 'The reason phrase of the status', examples: ['Not Found'] },
      message: { type: 'string', examples: ['instance 3b4e2a1f9c07 not found'] },
      path: { type: 'string', examples: ['/instances/3b4e2a1f9c07'] },
    },
  },
  Registration: {
    type: 'object',
    description: 'What a client registers (Spring Boot Admin\'s format; snake_case aliases such as health_url are accepted too). Metadata values whose key matches metadata-keys-to-sanitize are shown as ******, and passwords in URLs too.',
    required: ['name', 'healthUrl'],
    properties: {
      name: { type: 'string', minLength: 1 },
      healthUrl: URL,
      managementUrl: NULLABLE_URL,
      serviceUrl: NULLABLE_URL,
      source: { type: ['string', 'null'], description: 'http-api for registrations over HTTP, discovery for discovered ones' },
      metadata: { type: 'object', additionalProperties: { type: 'string' } },
    },
  },
  StatusInfo: {
    type: 'object',
    required: ['status', 'details'],
    properties: { status: STATUS, details: { type: 'object', description: 'The health body\'s details or components' } },
  },
  Endpoint: { type: 'object', required: ['id', 'url'], properties: { id: { type: 'string', examples: ['health'] }, url: URL } },
  Instance: {
    type: 'object',
    required: ['id', 'version', 'registration', 'registered', 'statusInfo', 'statusTimestamp', 'info', 'endpoints', 'buildVersion', 'tags'],
    properties: {
      id: { type: 'string', description: 'The first 12 hex characters of SHA-1(healthUrl)', examples: ['3b4e2a1f9c07'] },
      version: { type: 'integer', description: 'Version of the last event applied' },
      registration: { oneOf: [{ $ref: '#/components/schemas/Registration' }, { type: 'null' }] },
      registered: { type: 'boolean' },
      statusInfo: { $ref: '#/components/schemas/StatusInfo' },
      statusTimestamp: { type: 'string', format: 'date-time' },
      info: { type: 'object' },
      endpoints: { type: 'array', items: { $ref: '#/components/schemas/Endpoint' } },
      buildVersion: { type: ['string', 'null'] },
      tags: { type: 'object', additionalProperties: { type: 'string' } },
    },
  },
  InstanceEvent: {
    type: 'object',
    description: 'One recorded change; the fields after type depend on it',
    required: ['instance', 'version', 'timestamp', 'type'],
    properties: {
      instance: { type: 'string' },
      version: { type: 'integer', description: 'Counts per instance from 0' },
      timestamp: { type: 'string', format: 'date-time' },
      type: { enum: ['REGISTERED', 'REGISTRATION_UPDATED', 'STATUS_CHANGED', 'ENDPOINTS_DETECTED', 'INFO_CHANGED', 'DEREGISTERED'] },
      registration: { $ref: '#/components/schemas/Registration' },
      statusInfo: { $ref: '#/components/schemas/StatusInfo' },
      endpoints: { type: 'array', items: { $ref: '#/components/schemas/Endpoint' } },
      info: { type: 'object' },
    },
  },
  Application: {
    type: 'object',
    required: ['name', 'buildVersion', 'status', 'statusTimestamp', 'instances'],
    properties: {
      name: { type: 'string' },
      buildVersion: { type: ['string', 'null'] },
      status: { ...STATUS, description: 'The instances\' shared status; mixed statuses including UP give RESTRICTED; otherwise the most severe' },
      statusTimestamp: { type: 'string', format: 'date-time' },
      instances: { type: 'array', items: { $ref: '#/components/schemas/Instance' } },
    },
  },
};

/** `#/components/responses/Error`: what `ERROR_RESPONSE` points at. */
export const ERROR_RESPONSE_OBJECT: OpenApiObject = {
  description: 'An error, with the status of the failure (400 bad input, 401/403 authentication, 404 unknown, 413 body over 1 MiB, 415 not JSON, 5xx)',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};
