import type { Attempt, DeliveryTools, OutgoingRequest } from './channel.js';

/**
 * Sends requests one after the other, for receivers that take one event per request (PagerDuty,
 * Opsgenie); the first that does not go through is the attempt's outcome. A retry sends them all
 * again, which those receivers de-duplicate by their keys.
 */
export async function sendEach(tools: DeliveryTools, requests: readonly OutgoingRequest[]): Promise<Attempt> {
  for (const request of requests) {
    const result = await tools.send(request);
    if (result.outcome !== 'delivered') return result;
  }
  return { outcome: 'delivered' };
}
