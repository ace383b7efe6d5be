/**
 * # The discovery kit (`vigil/discovery`)
 *
 * What a discovery source plugin (`discovery-file`, `discovery-kubernetes`, a third-party one)
 * shares with the others: `defineDiscoverySource` turns a source's `list()` into a plugin that
 * reconciles the registry with what the source lists, on a schedule and on refresh, under a
 * cluster-wide lease; the helpers convert, filter and fetch what sources read. The kit uses only
 * the plugin contract (`vigil/plugin`), as a third-party source would.
 *
 * Each finished run is published on the bus as `discovery.ran` (declared here, by module
 * augmentation of the contract's `BusEvents`).
 */
import type { DiscoveryRun } from './runner.js';

export { defineDiscoverySource } from './define-source.js';
export { convertService, ConversionError } from './convert.js';
export { simpleMatch } from './filters.js';
export { ApiError, getJson, type GetOptions, type JsonAnswer } from './api-client.js';
export { metadataMap, type DiscoveryConfig } from './config.js';
export type { DiscoveryRun } from './runner.js';
export type { RunDiff } from './reconcile.js';
export type {
  Discovered, DiscoveredRegistration, DiscoveredService, DiscoverySource, DiscoverySourceDefinition, ListOptions, RunReason, SourceContext,
} from './types.js';

declare module '../../plugin-api.js' {
  interface BusEvents {
    /** A discovery source finished a run on this node: what it changed, or why it failed (nothing removed then). */
    'discovery.ran': DiscoveryRun;
  }
}
