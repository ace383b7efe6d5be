import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BoundedVerifier, type Admission } from '../../../plugins/basic-auth/bounded-verifier.js';

/** A task the test finishes by hand, recording when it started. */
function deferred(started: string[], name: string): { task: () => Promise<string>; finish: () => void; fail: (error: Error) => void } {
  let resolve!: (value: string) => void;
  let reject!: (error: Error) => void;
  const done = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return {
    task: () => {
      started.push(name);
      return done;
    },
    finish: () => resolve(name),
    fail: (error) => reject(error),
  };
}

function admitted<T>(admission: Admission<T>): Promise<T> {
  if (!admission.admitted) throw new Error(`refused (retry after ${admission.retryAfterMs} ms)`);
  return admission.result;
}

async function failure(promise: Promise<unknown>): Promise<string> {
  return promise.then(() => 'resolved', (error: Error) => error.message);
}

/** Lets every queued promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

test('runs at most `concurrency` tasks at once, the next in arrival order, and refuses past the queue', async () => {
  const verifier = new BoundedVerifier(2, 2);
  const started: string[] = [];
  const tasks = ['a', 'b', 'c', 'd'].map((name) => deferred(started, name));
  const results = tasks.map((task) => admitted(verifier.submit(task.task)));
  await settle();
  assert.equal(started, ['a', 'b']);
  assert.is(verifier.running, 2);
  assert.is(verifier.waiting, 2);
  const refused = verifier.submit(async () => 'e');
  assert.is(refused.admitted, false);

  tasks[1]!.finish();
  assert.is(await results[1], 'b');
  assert.equal(started, ['a', 'b', 'c']);
  // A slot in the queue freed up: admitted again.
  const late = deferred(started, 'f');
  const lateResult = admitted(verifier.submit(late.task));
  for (const task of [tasks[0]!, tasks[2]!, tasks[3]!, late]) task.finish();
  assert.equal(await Promise.all([results[0], results[2], results[3], lateResult]), ['a', 'c', 'd', 'f']);
  assert.equal(started, ['a', 'b', 'c', 'd', 'f']);
  assert.is(verifier.running, 0);
  assert.is(verifier.waiting, 0);
});

test('a task that throws or rejects fails its own result and frees its slot', async () => {
  const verifier = new BoundedVerifier(1, 1);
  const thrown = admitted(verifier.submit(() => {
    throw new Error('sync');
  }));
  const rejected = admitted(verifier.submit(() => Promise.reject(new Error('async'))));
  assert.is(await failure(thrown), 'sync');
  assert.is(await failure(rejected), 'async');
  assert.is(await admitted(verifier.submit(async () => 'next')), 'next');
  assert.is(verifier.running, 0);
});

test('with no queue, only the running tasks are admitted', async () => {
  const verifier = new BoundedVerifier(1, 0);
  const started: string[] = [];
  const first = deferred(started, 'a');
  const result = admitted(verifier.submit(first.task));
  assert.is(verifier.submit(async () => 'b').admitted, false);
  first.finish();
  assert.is(await result, 'a');
  assert.is(verifier.submit(async () => 'c').admitted, true);
});

test('a refusal says how long what is running and waiting will take, at the pace measured so far', async () => {
  let now = 0;
  const verifier = new BoundedVerifier(1, 2, () => now);
  const started: string[] = [];
  const tasks = ['a', 'b', 'c'].map((name) => deferred(started, name));
  const results = tasks.map((task) => admitted(verifier.submit(task.task)));
  await settle();
  // Nothing measured yet: a first guess of 100 ms a run, three runs ahead.
  assert.equal(verifier.submit(async () => 'x'), { admitted: false, retryAfterMs: 300 });
  now += 40;
  tasks[0]!.finish();
  await results[0];
  // b runs, c waits, d joins the queue; then three runs of 40 ms are ahead of a newcomer.
  const d = deferred(started, 'd');
  const dResult = admitted(verifier.submit(d.task));
  assert.equal(verifier.submit(async () => 'y'), { admitted: false, retryAfterMs: 120 });
  // The average follows newer runs: after one of 90 ms it is 0.8 × 40 + 0.2 × 90 = 50.
  now += 90;
  tasks[1]!.finish();
  await results[1];
  // c runs, d waits, e joins the queue.
  const e = deferred(started, 'e');
  const eResult = admitted(verifier.submit(e.task));
  assert.equal(verifier.submit(async () => 'z'), { admitted: false, retryAfterMs: 150 });
  for (const task of [tasks[2]!, d, e]) task.finish();
  await Promise.all([results[2], dResult, eResult]);
  assert.equal(started, ['a', 'b', 'c', 'd', 'e']);
});

test.run();
