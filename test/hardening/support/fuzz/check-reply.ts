import { STATUS_CODES } from 'node:http';
import type { RawResponse } from '../raw-http.js';
import type { Expected } from './oracle.js';

const ERROR_KEYS = ['error', 'message', 'path', 'status', 'timestamp'];

/** Everything wrong with `reply` given what was expected; empty when it is right. */
export function complaintsAbout(reply: RawResponse, expected: Expected, head: boolean): string[] {
  const problems: string[] = [];
  if (reply.status === 0) return ['no response at all (connection closed)'];
  if (reply.status >= 500) problems.push(`server error ${reply.status}: ${reply.body.toString('utf8').slice(0, 300)}`);
  switch (expected.kind) {
    case 'error':
      if (reply.status !== expected.status) problems.push(`status ${reply.status}, expected ${expected.status}: ${reply.body.toString('utf8').slice(0, 300)}`);
      else problems.push(...errorBodyProblems(reply, head, expected.path));
      if (expected.challenges) {
        const got = reply.headerList.filter(([name]) => name === 'www-authenticate').map(([, value]) => value);
        if (JSON.stringify(got) !== JSON.stringify(expected.challenges)) problems.push(`WWW-Authenticate ${JSON.stringify(got)}, expected ${JSON.stringify(expected.challenges)}`);
      }
      break;
    case 'success': {
      if (reply.status !== expected.status) {
        problems.push(`status ${reply.status}, expected ${expected.status}: ${reply.body.toString('utf8').slice(0, 300)}`);
        break;
      }
      const complaint = expected.verify?.(reply);
      if (complaint) problems.push(complaint);
      break;
    }
    case 'stream':
      if (reply.status !== 200 || !reply.stream) problems.push(`expected a 200 event stream, got ${reply.status} ${reply.headers['content-type'] ?? ''}`);
      break;
    case 'unmodelled':
      if (reply.status >= 400) problems.push(...errorBodyProblems(reply, head, undefined));
      break;
  }
  return problems;
}

/** The contract's error body: `{timestamp, status, error, message, path}`, JSON, status and reason matching. */
function errorBodyProblems(reply: RawResponse, head: boolean, path: string | undefined): string[] {
  if (!/^application\/json/.test(reply.headers['content-type'] ?? '')) return [`error ${reply.status} is not JSON (${reply.headers['content-type'] ?? 'no Content-Type'})`];
  if (head) return [];
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(reply.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return [`error body is not JSON: ${reply.body.toString('utf8').slice(0, 200)}`];
  }
  const problems: string[] = [];
  if (JSON.stringify(Object.keys(body).sort()) !== JSON.stringify(ERROR_KEYS)) problems.push(`error body keys ${Object.keys(body).join(',')}`);
  if (body.status !== reply.status) problems.push(`error body status ${String(body.status)}`);
  if (body.error !== STATUS_CODES[reply.status]) problems.push(`error body error ${String(body.error)}`);
  if (typeof body.message !== 'string' || body.message === '') problems.push('error body without a message');
  if (typeof body.timestamp !== 'string' || Number.isNaN(Date.parse(body.timestamp))) problems.push(`error body timestamp ${String(body.timestamp)}`);
  if (path !== undefined && body.path !== path) problems.push(`error body path ${JSON.stringify(body.path)}, expected ${JSON.stringify(path)}`);
  return problems;
}
