/**
 * Every key Vigil uses in Redis, under one prefix (`key-prefix`), so several Vigil clusters or
 * other applications can share one Redis. What each holds:
 */
export class Keys {
  constructor(private readonly prefix: string) {}

  /** hash: `incarnation` (a random id of this history) and `base` (its first seq). */
  get meta(): string { return `${this.prefix}meta`; }
  /** string counter: the last seq issued. */
  get seq(): string { return `${this.prefix}seq`; }
  /** hash: instance id → its last version (the optimistic lock). */
  get versions(): string { return `${this.prefix}ver`; }
  /** hash: instance id → its snapshot (JSON) after the last event, what a starting node loads. */
  get snapshots(): string { return `${this.prefix}snap`; }
  /** stream per instance: its held events (fields q = seq, k = compaction kind, e = event JSON). */
  events(id: string): string { return `${this.prefix}ev:${id}`; }
  /** sorted set: `<stream entry id> <instance id>` of every held event → its seq: the histories in seq order. */
  get eventIndex(): string { return `${this.prefix}evidx`; }
  /** stream: every append (q, i, e) and every drop (d) in order: what every node tails. */
  get feed(): string { return `${this.prefix}feed`; }
  /** sorted set: deregistered instance id → the seq of its DEREGISTERED (a time in ms in older data, which sorts first), for retention and the cap. */
  get deregistered(): string { return `${this.prefix}dereg`; }
  /** sorted set: node id → when its heartbeat expires (Redis's clock, ms). */
  get nodes(): string { return `${this.prefix}nodes`; }
  /** hash: node id → the token of the process using it now (two processes with one id are an error). */
  get nodeOwners(): string { return `${this.prefix}node-owner`; }
  /** string: `<node>|<token>` of a lease's holder, expiring with the lease. */
  lease(name: string): string { return `${this.prefix}lease:${name}`; }
  /** counter: a lease's fencing token, one more with every grant. */
  epoch(name: string): string { return `${this.prefix}epoch:${name}`; }
  /** stream + consumer group `notify`: notification work, written with each event while consumed. */
  get outbox(): string { return `${this.prefix}outbox`; }
  /** string, expiring: set while some node consumes the outbox, so appends write to it. */
  get outboxOn(): string { return `${this.prefix}outbox-on`; }
  /** string per entry of a shared map (with its own expiry), and the set of a map's keys. */
  state(map: string, key: string): string { return `${this.prefix}state:${map}:${key}`; }
  stateKeys(map: string): string { return `${this.prefix}state-keys:${map}`; }
  counter(name: string): string { return `${this.prefix}counter:${name}`; }
  /** stream per shared log (ids `0-<position>`, field v = the value), and its position counter. */
  log(name: string): string { return `${this.prefix}log:${name}`; }
  logPosition(name: string): string { return `${this.prefix}log-position:${name}`; }
  /** pub/sub: a refresh asked of every node; a node leaving. */
  get refreshChannel(): string { return `${this.prefix}refresh`; }
  get membershipChannel(): string { return `${this.prefix}membership`; }
}
