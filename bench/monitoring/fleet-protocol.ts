/** Messages between the benchmark and its child processes (fake fleet, baseline poller) over IPC. */

export type FleetRequest =
  | { readonly type: 'progress' }
  /** Starts (clearing what was recorded) or stops noting the time of each health request. */
  | { readonly type: 'record'; readonly on: boolean }
  | { readonly type: 'dump' };

export type FleetReply =
  | { readonly type: 'ready'; readonly ports: number[] }
  /** `infoSeen`: instances whose info was requested at least once (so: UP, endpoints detected). */
  | { readonly type: 'progress'; readonly requests: number; readonly infoSeen: number; readonly healthTotal: number }
  | { readonly type: 'recording'; readonly on: boolean }
  /** One entry per health request while recording: instance number, wall-clock time (ms), and the checking node (an index into `nodeNames`). */
  | { readonly type: 'dump'; readonly ids: number[]; readonly at: number[]; readonly by: number[]; readonly nodeNames: string[] };

export type PollerRequest = { readonly type: 'start' } | { readonly type: 'stats' };

export type PollerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'stats'; readonly polls: number; readonly failures: number };
