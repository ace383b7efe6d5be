import type { IncomingMessage } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { wantsJsonNotHtml } from '../../../plugins/ui/accept.js';

const request = (accept?: string) => ({ headers: accept === undefined ? {} : { accept } }) as IncomingMessage;

test('JSON named and HTML not: an API client', () => {
  for (const accept of ['application/json', 'APPLICATION/JSON', 'application/problem+json', 'application/json, */*;q=0.1', 'text/html;q=0, application/json', ' application/json ; charset=utf-8']) {
    assert.ok(wantsJsonNotHtml(request(accept)), accept);
  }
});

test('anything else gets the page', () => {
  for (const accept of [undefined, '', '*/*', 'text/html', 'application/xhtml+xml,application/json', 'application/json;q=0, text/plain', 'text/plain', ',;,']) {
    assert.not.ok(wantsJsonNotHtml(request(accept)), String(accept));
  }
});

test.run();
