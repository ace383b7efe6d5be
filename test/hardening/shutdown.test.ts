import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { within } from '../plugins/proxy/helpers.js';
import { call, eventually } from '../support/http.js';
import { startDaemon } from '../support/daemon-process.js';
import { DripInstance } from './support/drip-instance.js';
import { ADMIN, basic, discoveryConfig, securityConfig, selfContainedPlugins } from './support/full-kernel.js';
import { LONG } from './support/settings.js';
import { watchResponse, type Watched } from './support/watched-response.js';

const AUTH = { authorization: basic(ADMIN.username, ADMIN.password) };
/** The 1,000 open streams under `npm run test:long`; a fifth of them by default. */
const STREAMS = LONG ? 1000 : 200;
const DOWNLOADS = 8;
/** Declared size of each download: at one 64 KiB chunk per DRIP_MS it would take minutes. */
const DOWNLOAD_BYTES = 1024 * 1024 * 1024;
const DRIP_MS = 20;
/** Four of the instance's chunks: the download is well under way. */
const IN_FLIGHT_BYTES = 4 * 64 * 1024;
/** The limit, from the signal to the exit. */
const EXIT_WITHIN_MS = 5000;

/** Every stream form, in turn: the event list, application snapshots, one instance, and the Accept-header twins. */
function streamPaths(id: string): readonly (readonly [string, string])[] {
  return [
    ['/instances/events', 'text/event-stream'],
    ['/applications/events', 'text/event-stream'],
    [`/instances/${id}/events`, 'text/event-stream'],
    [`/instances/${id}`, 'text/event-stream'],
    ['/applications', 'text/event-stream'],
  ];
}

/** Resolves with the connection's error code: ECONNREFUSED once nothing listens. */
function connectError(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

test(`SIGTERM with ${STREAMS} open streams and ${DOWNLOADS} proxied downloads in flight: exit 0 within 5 s, every stream ended, nothing listening`, async () => {
  const drip = await DripInstance.start(DOWNLOAD_BYTES, DRIP_MS);
  const daemon = await startDaemon({ ...securityConfig(), ...discoveryConfig(), plugins: selfContainedPlugins(), 'log-level': 'info' });
  const streams: Watched[] = [];
  const downloads: Watched[] = [];
  try {
    const base = daemon.url;
    const registered = await call('POST', `${base}/instances`, { json: { name: 'dumps', healthUrl: drip.healthUrl, managementUrl: drip.managementUrl }, headers: AUTH });
    assert.is(registered.status, 201, registered.text);
    const { id } = registered.json as { id: string };
    await eventually(async () => {
      const reply = await call('GET', `${base}/instances/${id}`, { headers: AUTH });
      return (reply.json as { endpoints: { id: string }[] }).endpoints.some((endpoint) => endpoint.id === 'heapdump');
    }, 'heapdump detected', 10_000);

    // Each stream counts as open once its first ping arrived: the daemon has subscribed it.
    const forms = streamPaths(id);
    for (let opened = 0; opened < STREAMS; opened += 50) {
      const batch = Array.from({ length: Math.min(50, STREAMS - opened) }, (_, i) => {
        const [path, accept] = forms[(opened + i) % forms.length]!;
        return watchResponse(daemon.port, path, { ...AUTH, accept }, (chunk) => chunk.includes(':ping'));
      });
      streams.push(...await Promise.all(batch));
    }
    // Downloads count as in flight once a few chunks came through the proxy.
    downloads.push(...await Promise.all(Array.from({ length: DOWNLOADS }, () =>
      watchResponse(daemon.port, `/instances/${id}/actuator/heapdump`, AUTH, (_chunk, total) => total >= IN_FLIGHT_BYTES))));
    assert.equal([...new Set(streams.map((stream) => stream.status))], [200]);
    assert.equal([...new Set(downloads.map((download) => download.status))], [200]);
    assert.is(drip.downloadsStarted, DOWNLOADS);

    const signalled = performance.now();
    daemon.child.kill('SIGTERM');
    const { code, signal } = await within(daemon.exited, 'the exit after SIGTERM', 10_000);
    const tookMs = performance.now() - signalled;

    const streamEnds = await within(Promise.all(streams.map((stream) => stream.closed)), 'every stream closed', 5000);
    const downloadEnds = await within(Promise.all(downloads.map((download) => download.closed)), 'every download closed', 5000);
    const refused = await connectError(daemon.port);
    await eventually(() => drip.downloadsClosed === DOWNLOADS, 'the daemon closed its calls to the instance', 5000);
    console.log(`  shutdown: ${STREAMS} streams and ${DOWNLOADS} downloads open, exit ${code} ${Math.round(tookMs)} ms after SIGTERM;`
      + ` downloads: ${downloadEnds.filter((end) => end.clean).length} complete, ${downloadEnds.filter((end) => !end.clean).length} cut`
      + ` after ${Math.round(downloadEnds.reduce((sum, end) => sum + end.bytes, 0) / DOWNLOADS / 1024)} KiB on average`);

    assert.is(signal, null);
    assert.is(code, 0, daemon.logs().join('\n'));
    assert.ok(tookMs <= EXIT_WITHIN_MS, `exit ${Math.round(tookMs)} ms after SIGTERM`);
    // Ended by the daemon with the stream's last chunk, not dropped by the process going away.
    assert.equal(streamEnds.filter((end) => !end.clean).length, 0, 'streams that were cut instead of ended');
    // A download may have been cut (it could not finish) but none is left hanging, and none looks complete when it was not.
    assert.ok(downloadEnds.every((end) => end.clean === (end.bytes === DOWNLOAD_BYTES)), 'a cut download must not end like a whole one');
    assert.is(refused, 'ECONNREFUSED');
    const logs = daemon.logs();
    assert.ok(logs.some((line) => line.includes('SIGTERM received')), 'the signal was logged');
    assert.ok(logs.some((line) => / stopped\b/.test(line)), 'the kernel logged that it stopped');
    assert.equal(logs.filter((line) => / error /.test(line)), []);
  } finally {
    for (const watched of [...streams, ...downloads]) watched.destroy();
    await daemon.stop();
    await drip.close();
  }
});

test.run();
