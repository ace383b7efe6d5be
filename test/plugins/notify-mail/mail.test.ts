import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { eventually } from '../../support/http.js';
import { requireBinary } from '../../support/require-binary.js';
import { HOSTILE, notifyKernel, registerInstance, setStatus, urlsOf } from '../notify/support.js';
import { decodeHeader, parseMime } from './mime.js';
import { SmtpSink } from './smtp-sink.js';

// openssl makes the self-signed certificate of the TLS cases; the plain case needs nothing.
const { test, path: openssl } = requireBinary('openssl', 'apt-get install openssl');

const LOGIN = { user: 'vigil', password: 'SmtpPassw0rd' };
const DETAILS = { db: { status: 'DOWN', details: { error: 'Connection refused' } }, ping: { status: 'UP' } };

test('notify-mail: SMTP with auth; subject, headers, a plain-text and an HTML part as SBA\'s mail, every value escaped', async () => {
  const sink = await SmtpSink.start({ disabledCommands: ['STARTTLS'], allowInsecureAuth: true }, LOGIN);
  const tk = await notifyKernel(['notify-mail'], {
    'notify-mail': {
      host: '127.0.0.1', port: sink.port, user: LOGIN.user, password: LOGIN.password, 'require-tls': false,
      from: 'Vigil <vigil@example.com>', to: 'ops@example.com, oncall@example.com', cc: ['lead@example.com'], 'base-url': 'https://vigil.example/',
    },
  });
  try {
    const id = await registerInstance(tk, HOSTILE);
    await setStatus(tk, id, 'UP');
    await setStatus(tk, id, 'DOWN', DETAILS);
    const [mail] = await sink.received(1);
    const version = tk.kernel.registry.get(id)!.version;
    assert.equal({ from: mail!.from, to: mail!.to, user: mail!.user }, {
      from: 'vigil@example.com', to: ['ops@example.com', 'oncall@example.com', 'lead@example.com'], user: 'vigil',
    });
    const message = parseMime(mail!.raw);
    const subject = `${HOSTILE} (${id}) is DOWN`;
    assert.is(decodeHeader(message.headers.subject!), subject);
    assert.is(message.headers.from, 'Vigil <vigil@example.com>');
    assert.is(message.headers.to, 'ops@example.com, oncall@example.com');
    assert.is(message.headers.cc, 'lead@example.com');
    assert.is(message.headers['message-id'], `<${id}-${version}@vigil>`);
    assert.match(message.headers['content-type']!, /^multipart\/alternative;/);
    const [text, html] = message.parts;
    assert.match(text!.headers['content-type']!, /^text\/plain; charset=utf-8/);
    assert.match(html!.headers['content-type']!, /^text\/html; charset=utf-8/);
    const urls = urlsOf(tk, id);
    assert.is(text!.body, [
      subject,
      '',
      `Instance ${id} changed status from UP to DOWN`,
      `https://vigil.example/#/instances/${id}/`,
      '',
      'Status Details',
      '  db:',
      '    status: DOWN',
      '    details:',
      '      error: Connection refused',
      '  ping:',
      '    status: UP',
      '',
      'Registration',
      `  Service Url: ${urls.serviceUrl}`,
      `  Health Url: ${urls.healthUrl}`,
      `  Management Url: ${urls.managementUrl}`,
    ].join('\n'));
    const escaped = '&lt;!channel&gt; &lt;/b&gt;&lt;script&gt;x&lt;/script&gt; @everyone [a](https://evil.example) *b*';
    assert.is(html!.body, [
      '<!DOCTYPE html>',
      '<html>',
      `<head><meta charset="utf-8"><title>${escaped} (${id}) is DOWN</title></head>`,
      '<body>',
      `<h1>${escaped} (${id}) is DOWN</h1>`,
      `<p>Instance <a href="https://vigil.example/#/instances/${id}/">${id}</a> changed status from UP to DOWN</p>`,
      '<h2>Status Details</h2>',
      '<dl><dt>db</dt><dd><dl><dt>status</dt><dd>DOWN</dd><dt>details</dt><dd><dl><dt>error</dt><dd>Connection refused</dd></dl></dd></dl></dd><dt>ping</dt><dd><dl><dt>status</dt><dd>UP</dd></dl></dd></dl>',
      '<h2>Registration</h2>',
      '<table>',
      `<tr><td>Service Url</td><td><a href="${urls.serviceUrl}">${urls.serviceUrl}</a></td></tr>`,
      `<tr><td>Health Url</td><td><a href="${urls.healthUrl}">${urls.healthUrl}</a></td></tr>`,
      `<tr><td>Management Url</td><td><a href="${urls.managementUrl}">${urls.managementUrl}</a></td></tr>`,
      '</table>',
      '</body>',
      '</html>',
      '',
    ].join('\n'));
    assert.ok(!html!.body.includes('<script>'));
    assert.ok(!tk.logs().join('\n').includes(LOGIN.password));
  } finally {
    await tk.stop();
    await sink.close();
  }
});

test('notify-mail: a rejected login is given up at once; 4xx answers are retried', async () => {
  const sink = await SmtpSink.start({ disabledCommands: ['STARTTLS'], allowInsecureAuth: true }, LOGIN);
  const tk = await notifyKernel(['notify-mail'], {
    notify: { delivery: { 'backoff-base': '20ms' } },
    'notify-mail': { host: '127.0.0.1', port: sink.port, user: LOGIN.user, password: 'Wr0ngPassw0rd', 'require-tls': false },
  });
  try {
    const id = await registerInstance(tk, 'orders');
    await setStatus(tk, id, 'DOWN');
    const line = await eventually(() => tk.logs().find((l) => l.includes('gave up')), 'the mail to be given up');
    assert.match(line, /notify-mail: gave up on .*: EAUTH: Invalid login/);
    assert.ok(!tk.logs().join('\n').includes('Wr0ngPassw0rd'));
    assert.is(sink.mails.length, 0);
  } finally {
    await tk.stop();
    await sink.close();
  }
});

test('notify-mail: with a user, require-tls defaults to true: a server without STARTTLS never sees the password, and the mail is given up at once', async () => {
  const sink = await SmtpSink.start({ disabledCommands: ['STARTTLS'], allowInsecureAuth: true }, LOGIN);
  const tk = await notifyKernel(['notify-mail'], {
    notify: { delivery: { 'backoff-base': '20ms' } },
    'notify-mail': { host: '127.0.0.1', port: sink.port, user: LOGIN.user, password: LOGIN.password },
  });
  try {
    const id = await registerInstance(tk, 'orders');
    await setStatus(tk, id, 'DOWN');
    const line = await eventually(() => tk.logs().find((l) => l.includes('gave up')), 'the mail to be given up');
    assert.match(line, /notify-mail: gave up on .*: ETLS: Error upgrading connection with STARTTLS: 500 /);
    assert.equal([sink.mails.length, sink.logins], [0, 0]);
    const status = (await (await fetch(`${tk.url}/notifications`)).json()) as { channels: { failed: number; retries: number }[] };
    assert.equal([status.channels[0]!.failed, status.channels[0]!.retries], [1, 0]);
    assert.ok(!tk.logs().join('\n').includes(LOGIN.password));
  } finally {
    await tk.stop();
    await sink.close();
  }
});

test('notify-mail: without a user nothing is secret, so require-tls stays false and plain SMTP works', async () => {
  const sink = await SmtpSink.start({ disabledCommands: ['STARTTLS', 'AUTH'], authOptional: true });
  const tk = await notifyKernel(['notify-mail'], { 'notify-mail': { host: '127.0.0.1', port: sink.port } });
  try {
    const id = await registerInstance(tk, 'orders');
    await setStatus(tk, id, 'DOWN');
    const [mail] = await sink.received(1);
    assert.equal([mail!.secure, mail!.user, mail!.to], [false, undefined, ['root@localhost']]);
  } finally {
    await tk.stop();
    await sink.close();
  }
});

function certificate(): { dir: string; key: string; cert: string; certFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-smtp-tls-'));
  execFileSync(openssl, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { dir, key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), certFile: join(dir, 'cert.pem') };
}

test('notify-mail: STARTTLS (required) and implicit TLS, the server\'s certificate checked against ca-file', async () => {
  const tls = certificate();
  const starttls = await SmtpSink.start({ key: tls.key, cert: tls.cert }, LOGIN);
  const implicit = await SmtpSink.start({ secure: true, key: tls.key, cert: tls.cert }, LOGIN);
  const tk = await notifyKernel(['notify-mail'], {
    'notify-mail': { host: '127.0.0.1', port: starttls.port, 'require-tls': true, 'ca-file': tls.certFile, user: LOGIN.user, password: LOGIN.password },
  });
  const tk2 = await notifyKernel(['notify-mail'], {
    'notify-mail': { host: '127.0.0.1', port: implicit.port, secure: true, 'ca-file': tls.certFile, user: LOGIN.user, password: LOGIN.password },
  });
  try {
    for (const kernel of [tk, tk2]) {
      const id = await registerInstance(kernel, 'orders');
      await setStatus(kernel, id, 'DOWN');
    }
    const [viaStarttls] = await starttls.received(1);
    const [viaTls] = await implicit.received(1);
    assert.equal([viaStarttls!.secure, viaStarttls!.user, viaStarttls!.to], [true, 'vigil', ['root@localhost']]);
    assert.equal([viaTls!.secure, viaTls!.user], [true, 'vigil']);
    assert.match(decodeHeader(parseMime(viaTls!.raw).headers.subject!), /^orders \([0-9a-f]{12}\) is DOWN$/);
  } finally {
    await tk.stop();
    await tk2.stop();
    await starttls.close();
    await implicit.close();
    rmSync(tls.dir, { recursive: true, force: true });
  }
});

test.run();
