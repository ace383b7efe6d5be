import type { IncomingMessage } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { acceptedMediaRanges, acceptsExplicitly } from '../../../core/http/accepts.js';

const request = (accept: string | undefined) => ({ headers: accept === undefined ? {} : { accept } }) as IncomingMessage;

test('Accept: the ranges a client takes, lower-cased; q=0 refuses one, whatever the case or spacing of q', () => {
  assert.equal(acceptedMediaRanges('Text/Event-Stream;Q=0, application/json ; q=0.5, text/html; q=0, */*;level=1'), ['application/json', '*/*']);
  assert.equal(acceptedMediaRanges(undefined), []);
  assert.equal(acceptedMediaRanges(' , text/plain;q=0.000'), []);
});

test('a stream is served only to a client that names its type with a quality above zero (never to */*)', () => {
  assert.ok(acceptsExplicitly(request('text/event-stream'), 'text/event-stream'));
  assert.not.ok(acceptsExplicitly(request('text/event-stream;Q=0'), 'text/event-stream'));
  assert.not.ok(acceptsExplicitly(request('*/*'), 'text/event-stream'));
  assert.not.ok(acceptsExplicitly(request(undefined), 'text/event-stream'));
});

test.run();
