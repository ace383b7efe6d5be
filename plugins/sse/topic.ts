/** What a stream carries: every event, one instance's events, or application snapshots. */
export type Topic =
  | { readonly kind: 'events' }
  | { readonly kind: 'instance'; readonly id: string }
  | { readonly kind: 'applications' };

/** How a topic reads in log lines. */
export function describeTopic(topic: Topic): string {
  return topic.kind === 'instance' ? `instance ${topic.id}` : topic.kind;
}
