import {
  ClientClosedError, ClientOfflineError, ConnectionTimeoutError, DisconnectsClientError, ErrorReply, ReconnectStrategyError,
  SocketClosedUnexpectedlyError, SocketTimeoutError, TimeoutError,
} from 'redis';
import { messageOf } from '../../core/plugin-api.js';

/** A command that got no answer within its timeout (a hung Redis, a lost network). */
export class RedisTimeout extends Error {}

/** Replies of a Redis that is there but cannot serve now: a demoted master, one loading its data, a master without replicas, a long script. */
const UNAVAILABLE_REPLY = /^(READONLY|LOADING|MASTERDOWN|BUSY)\b/;

/**
 * Whether an error means Redis cannot be used now (its connection failed, or it answers that it
 * cannot serve), as opposed to Redis answering this command with an error of its own (a script's
 * refusal, a wrong type, an ACL's NOPERM), which a retry would only repeat.
 */
export function isOutage(error: unknown): boolean {
  if (error instanceof ErrorReply) return UNAVAILABLE_REPLY.test(error.message);
  if (error instanceof RedisTimeout || error instanceof TimeoutError) return true;
  if (error instanceof SocketClosedUnexpectedlyError || error instanceof DisconnectsClientError || error instanceof ClientClosedError
    || error instanceof ClientOfflineError || error instanceof ConnectionTimeoutError || error instanceof SocketTimeoutError
    || error instanceof ReconnectStrategyError) return true;
  // A socket error as Node gives it (ECONNREFUSED, ECONNRESET, EPIPE, ETIMEDOUT, EHOSTUNREACH...).
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && /^E[A-Z]+$/.test((error as NodeJS.ErrnoException).code!);
}

/**
 * What went wrong, in words an operator reads in a log line or a 503's message: node-redis names
 * its failures after its own internals ("Disconnects client", "The client is closed").
 */
export function outageText(error: unknown): string {
  if (error instanceof DisconnectsClientError) return 'the connection was reset while the command waited for an answer (it may or may not have been applied)';
  if (error instanceof SocketClosedUnexpectedlyError) return 'the connection to Redis closed unexpectedly';
  if (error instanceof ClientClosedError || error instanceof ClientOfflineError) return 'the connection to Redis is closed';
  if (error instanceof ConnectionTimeoutError) return 'connecting to Redis timed out';
  if (error instanceof SocketTimeoutError || error instanceof TimeoutError) return 'Redis did not answer in time';
  if (error instanceof ReconnectStrategyError) return outageText(error.socketError);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'the connection to Redis closed unexpectedly';
  if (code === 'ECONNREFUSED') return 'Redis refused the connection (nothing listens at its address)';
  const message = messageOf(error);
  if (/^READONLY\b/.test(message)) return 'Redis is a read-only replica now (the master moved)';
  if (/^LOADING\b/.test(message)) return 'Redis is still loading its data';
  if (/^MASTERDOWN\b/.test(message)) return 'Redis lost its link to the master';
  if (/^BUSY\b/.test(message)) return 'Redis is busy running a script';
  return message;
}
