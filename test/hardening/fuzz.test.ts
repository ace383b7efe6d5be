import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { requestSpec } from './support/fuzz/arbitraries.js';
import { complaintsAbout } from './support/fuzz/check-reply.js';
import { expectedFor, type Expected } from './support/fuzz/oracle.js';
import { MAX_HEADER_BYTES, countedHeadBytes, render, type Auth, type RequestSpec } from './support/fuzz/spec.js';
import { FuzzWorld } from './support/fuzz/world.js';
import { ADMIN, ALLOWED_ORIGIN, CLIENT, TOKEN, basic } from './support/full-kernel.js';
import { sendRaw } from './support/raw-http.js';
import { fuzzSettings } from './support/settings.js';

function credentials(auth: Auth): string | undefined {
  switch (auth.kind) {
    case 'admin': return basic(ADMIN.username, ADMIN.password);
    case 'client': return basic(CLIENT.username, CLIENT.password);
    case 'token': return `Bearer ${TOKEN}`;
    case 'wrong-password': return basic(ADMIN.username, `${ADMIN.password}x`);
    case 'unknown-user': return basic('nobody', ADMIN.password);
    case 'wrong-token': return 'Bearer not-the-token';
    case 'malformed': return auth.value;
    case 'none': return undefined;
  }
}

/** A short, readable form of a request for failure reports (bodies can be megabytes). */
function describe(spec: RequestSpec): string {
  const body = spec.body === undefined ? 'no body' : `${spec.body.length}-byte ${spec.framing} body ${JSON.stringify(spec.body.subarray(0, 160).toString('utf8'))}`;
  const cors = spec.cors.kind === 'none' ? '' : ` cors=${JSON.stringify(spec.cors)}`;
  return `${spec.method} ${JSON.stringify(spec.path + spec.query)} auth=${spec.auth.kind}${spec.auth.kind === 'malformed' ? `(${JSON.stringify(spec.auth.value.slice(0, 40))})` : ''}`
    + ` accept=${JSON.stringify(spec.accept)} type=${JSON.stringify(spec.contentType)}${cors} extras=${JSON.stringify(spec.extras.map(([n, v]) => `${n}: ${v.slice(0, 30)}`))}`
    + ` defect=${JSON.stringify(spec.defect)} ${body}`;
}

const label = (expected: Expected) => (expected.kind === 'error' || expected.kind === 'success' ? String(expected.status) : expected.kind);

test('fuzz: every route, thousands of malformed requests: no 5xx, the contract\'s 4xx as JSON, nothing changed by a rejection', async () => {
  const { seed, runs } = fuzzSettings();
  console.log(`  fuzz: seed=${seed} requests=${runs} (replay with VIGIL_FUZZ_SEED=${seed}; count with VIGIL_FUZZ_RUNS)`);
  const world = await FuzzWorld.create();
  const { routes, port, tk } = world.full;
  const perRoute = new Map<string, number>(routes.map((route) => [`${route.method} ${route.path}`, 0]));
  const perOutcome = new Map<string, number>();
  let sent = 0;
  try {
    const arbitrary = requestSpec(routes, world.targets).map((spec) => Object.assign(spec, { [fc.toStringMethod]: () => describe(spec) }));
    await fc.assert(fc.asyncProperty(arbitrary, async (spec) => {
      const request = render(spec, port, credentials);
      // A long enough path (fully percent-encoded text, say) passes Node's limit on the head: Node answers that itself.
      const expected: Expected = !spec.defect && countedHeadBytes(request) >= MAX_HEADER_BYTES
        ? { kind: 'error', status: 431, path: '' }
        : expectedFor(spec, world.model, routes);
      const before = world.snapshot();
      const head = spec.method === 'HEAD' && spec.defect?.kind !== 'bad-method';
      let reply;
      try {
        reply = await sendRaw(port, request, { head });
      } finally {
        sent += 1;
      }
      const problems = complaintsAbout(reply, expected, head);
      if (spec.cors.kind === 'actual' && !spec.defect) {
        const allowOrigin = reply.headers['access-control-allow-origin'];
        const wanted = spec.cors.origin.allowed ? ALLOWED_ORIGIN : undefined;
        if (allowOrigin !== wanted) problems.push(`Access-Control-Allow-Origin ${String(allowOrigin)}, expected ${String(wanted)}`);
      }
      const mutation = expected.kind === 'success' ? expected.mutation : undefined;
      if (mutation) {
        const complaint = world.check(mutation);
        if (complaint) problems.push(complaint);
        await world.restore();
      } else if (world.snapshot() !== before) {
        problems.push(`the registry changed (${before} → ${world.snapshot()})`);
        await world.restore();
      }
      const key = `${spec.route.method} ${spec.route.path}`;
      perRoute.set(key, (perRoute.get(key) ?? 0) + 1);
      const outcome = `${expected.kind === 'error' ? 'rejected' : 'served'} ${label(expected)}`;
      perOutcome.set(outcome, (perOutcome.get(outcome) ?? 0) + 1);
      if (problems.length > 0) throw new Error(`${describe(spec)}\n  expected ${JSON.stringify({ ...expected, verify: undefined })}\n  got ${reply.status}: ${problems.join('; ')}`);
    }), { seed, numRuns: runs, includeErrorInReport: true });

    const missed = [...perRoute].filter(([key, count]) => count === 0 && !key.includes('(no route)')).map(([key]) => key);
    assert.equal(missed, [], `routes the fuzzer never reached: ${missed.join(', ')}`);
    const errors = tk.logs().filter((line) => / error /.test(line));
    assert.equal(errors, [], 'no error was logged');
    const summary = [...perOutcome].sort((a, b) => b[1] - a[1]).map(([outcome, count]) => `${outcome} ×${count}`).join(', ');
    console.log(`  fuzz: ${sent} requests over ${routes.length} routes (+ unrouted paths); ${summary}`);
    assert.ok(sent >= runs);
  } finally {
    await world.close();
  }
});

test.run();
