import { parentPort, workerData } from 'node:worker_threads';
import { getFrom, type AddressedReply } from '../../support/from-address.js';

/** What the worker is given: requests to send all at once, each from its own address. */
export interface FloodOrder {
  readonly port: number;
  readonly path: string;
  readonly requests: readonly { readonly address: string; readonly authorization: string }[];
}

/**
 * Sends a flood from a worker thread: opening a thousand connections and reading their answers
 * is the attacker's work, and on the test's own event loop (which also runs the kernel under
 * test) it would be counted against the kernel.
 */
const order = workerData as FloodOrder;
const replies: AddressedReply[] = await Promise.all(order.requests.map((request) =>
  getFrom(request.address, order.port, order.path, { authorization: request.authorization })));
parentPort!.postMessage(replies);
