import { defineToken } from './tokens.js';

/**
 * Which instances this node checks, provided under `OWNERSHIP` by a clustering plugin; without
 * one a node owns every instance. The monitor checks health and info and runs detection only for
 * owned instances, asks again right before it writes a result (a node that lost an instance
 * meanwhile writes nothing), and re-reads ownership on `instances.ownership-changed`. An instance
 * taken over is checked at its next phase point, or at once when the event says the node that
 * had it died and a check fell due since it was last heard of (`lostContactSince`).
 */
export interface Ownership {
  /** Whether this node is the one to check `id` now. Synchronous and cheap: asked per check. */
  owns(id: string): boolean;
}

export const OWNERSHIP = defineToken<Ownership>('vigil.ownership');

/**
 * A singleton job's lease: normally one node holds it and does the job. Leases are an efficiency
 * device, not a lock: a holder paused past its lease may still act, so every decision it writes
 * carries `token` (a fence) and the store refuses a token that is no longer current.
 */
export interface Lease {
  /** Whether this node holds the lease now. */
  readonly held: boolean;
  /** The fencing token of the current grant while held, else undefined. Grows with every grant. */
  readonly token: number | undefined;
}

/**
 * Leases for singleton jobs (the retention sweep, discovery runs, notification reminders),
 * provided under `LEASES` by a clustering plugin; without one every lease is always held
 * (one process does every job).
 */
export interface Leases {
  /** The lease called `name`, which this node competes for from now on (idempotent). */
  lease(name: string): Lease;
}

export const LEASES = defineToken<Leases>('vigil.leases');

/**
 * The node's id in a cluster, provided by a clustering plugin; without one the kernel uses
 * `<host name>:<port>`. It names the node in `User-Agent` and wherever nodes are told apart.
 */
export const NODE_ID = defineToken<string>('vigil.node-id');

/** One process alone: it owns every instance (the kernel's default for `OWNERSHIP`). */
export const SINGLE_NODE_OWNERSHIP: Ownership = { owns: () => true };

const ALWAYS: Lease = { held: true, token: 1 };

/** One process alone: every lease always held, its token never changing (the kernel's default for `LEASES`). */
export const SINGLE_NODE_LEASES: Leases = { lease: () => ALWAYS };
