/**
 * What a stream carries: every event, one instance's events, one instance's snapshots (SBA's
 * `GET /instances/{id}` with `Accept: text/event-stream`: the instance JSON after each of its
 * events), or application snapshots.
 */
export type Topic =
  | { readonly kind: 'events' }
  | { readonly kind: 'instance'; readonly id: string }
  | { readonly kind: 'instance-snapshots'; readonly id: string }
  | { readonly kind: 'applications' };

/** How a topic reads in log lines. */
export function describeTopic(topic: Topic): string {
  if (topic.kind === 'instance') return `instance ${topic.id}`;
  if (topic.kind === 'instance-snapshots') return `instance ${topic.id} (snapshots)`;
  return topic.kind;
}
