import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAEMON_ENV, DAEMON_NODE_FLAGS, machine, median, root, round, stopProcess, type Figure, type FigureSpec } from '../support.js';

const INSTANCES = Number(process.env.BENCH_DISCOVERY_N ?? 20_000);
const ROUNDS = Number(process.env.BENCH_DISCOVERY_ROUNDS ?? 3);
const CHANGES = Number(process.env.BENCH_DISCOVERY_CHANGES ?? 5);
const LINE_TIMEOUT_MS = 60_000;

const INITIAL: FigureSpec = { name: 'discovery-initial-ms', target: 5000, kind: 'max', unit: 'ms' };
const CHANGE: FigureSpec = { name: 'discovery-change-ms', target: 1000, kind: 'max', unit: 'ms' };
export const figures = [INITIAL, CHANGE];

/** A node process that reads and parses the same file: the floor of "start, then know the list". */
const PARSE_FLOOR = `
const text = require('node:fs').readFileSync(process.argv[1], 'utf8');
console.log('parsed ' + JSON.parse(text).length);
`;
/**
 * A node process doing the least the same design can: watch the directory, wait the same 200 ms
 * debounce, read and parse the file. Vigil does that and diffs, records and streams the event.
 */
const WATCH_FLOOR = `
const { readFileSync, watch } = require('node:fs');
const { basename, dirname } = require('node:path');
let timer;
watch(dirname(process.argv[1]), (event, file) => {
  if (file !== basename(process.argv[1])) return;
  clearTimeout(timer);
  timer = setTimeout(() => console.log('parsed ' + JSON.parse(readFileSync(process.argv[1], 'utf8')).length), 200);
});
console.log('watching');
`;

function entries(revision: (index: number) => string): string {
  const list = Array.from({ length: INSTANCES }, (_, i) => ({
    name: `app-${i % 100}`,
    url: `http://10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:8080`,
    metadata: { zone: `zone-${i % 3}`, revision: revision(i) },
  }));
  return JSON.stringify(list, null, 1);
}

/** Lines of a child's stdout, and a way to await the next one that matches. */
class Lines {
  readonly #seen: string[] = [];
  readonly #waiters = new Set<() => void>();
  #partial = '';
  #cursor = 0;

  constructor(readonly child: ChildProcess) {
    child.stdout!.on('data', (chunk: Buffer) => {
      const parts = (this.#partial + chunk.toString('utf8')).split('\n');
      this.#partial = parts.pop() ?? '';
      this.#seen.push(...parts);
      for (const wake of [...this.#waiters]) wake();
    });
    child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  }

  /** Forgets the lines so far: `next` looks only at lines that come after this. */
  skip(): void {
    this.#cursor = this.#seen.length;
  }

  /** Resolves with the first line from the cursor on that matches, and the time it was seen; moves the cursor past it. */
  next(pattern: RegExp): Promise<{ line: string; at: number }> {
    return new Promise((resolve, reject) => {
      const look = () => {
        for (let index = this.#cursor; index < this.#seen.length; index++) {
          if (!pattern.test(this.#seen[index]!)) continue;
          this.#cursor = index + 1;
          clearTimeout(timer);
          this.#waiters.delete(look);
          resolve({ line: this.#seen[index]!, at: performance.now() });
          return;
        }
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(look);
        reject(new Error(`no line matching ${pattern} within ${LINE_TIMEOUT_MS} ms; last lines:\n${this.#seen.slice(-10).join('\n')}`));
      }, LINE_TIMEOUT_MS);
      this.#waiters.add(look);
      look();
    });
  }
}

function node(args: string[]): Lines {
  return new Lines(spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...DAEMON_ENV }, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** An SSE client on /instances/events that resolves when an event of `type` arrives. */
async function subscribe(url: string): Promise<{ next(type: string): Promise<number>; close(): void }> {
  const controller = new AbortController();
  const response = await fetch(`${url}/instances/events`, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const pending: { type: string; resolve: (at: number) => void }[] = [];
  let connected: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => { connected = resolve; });
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (frame.startsWith(':')) connected();
        const data = /^data:(.*)$/m.exec(frame)?.[1];
        if (!data) continue;
        const type = (JSON.parse(data) as { type: string }).type;
        const waiter = pending.find((item) => item.type === type);
        if (waiter) {
          pending.splice(pending.indexOf(waiter), 1);
          waiter.resolve(performance.now());
        }
      }
    }
  })();
  await ready;
  return {
    next: (type) => new Promise((resolve) => pending.push({ type, resolve })),
    close: () => controller.abort(),
  };
}

/**
 * Discovery from a file of 20,000 instances (issue 17): `discovery-initial-ms` from spawning the
 * daemon until its first run logged all of them registered; `discovery-change-ms` from renaming
 * a new version of the file (one entry changed) into place until a client of
 * `/instances/events` gets the REGISTRATION_UPDATED. The file is JSON, as generated lists are.
 * Baselines in the same run: a bare node process that only starts, reads and parses the file,
 * and one that only watches the directory, waits the same 200 ms debounce, reads and parses it.
 */
export async function run(): Promise<Figure[]> {
  console.log(`discovery: ${INSTANCES} instances in a JSON file, ${ROUNDS} rounds, ${CHANGES} changes each; ${machine()}`);
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-discovery-'));
  const file = join(dir, 'instances.json');
  const config = join(dir, 'vigil.yaml');
  writeFileSync(file, entries(() => '0'));
  writeFileSync(config, `host: 127.0.0.1\nport: 0\nlog-level: info\nplugins: [rest-api, sse, discovery-file]\ndiscovery-file:\n  path: ${JSON.stringify(file)}\n`);
  const initial: number[] = [];
  const parseFloor: number[] = [];
  const changes: number[] = [];
  const watchFloor: number[] = [];
  let revision = 0;
  const started: ChildProcess[] = [];
  try {
    for (let round_ = 1; round_ <= ROUNDS; round_++) {
      const t0 = performance.now();
      const floor = node(['-e', PARSE_FLOOR, file]);
      started.push(floor.child);
      parseFloor.push((await floor.next(/^parsed /)).at - t0);
      await stopProcess(floor.child);

      const start = performance.now();
      const vigil = node([...DAEMON_NODE_FLAGS, join(root, 'bin', 'vigil.js'), '--config', config]);
      started.push(vigil.child);
      const url = /listening on (http:\/\/\S+)/.exec((await vigil.next(/listening on http/)).line)![1]!;
      const loaded = await vigil.next(new RegExp(`run \\(start\\): ${INSTANCES} added`));
      initial.push(loaded.at - start);

      const watcher = node(['-e', WATCH_FLOOR, file]);
      started.push(watcher.child);
      await watcher.next(/^watching$/);
      const events = await subscribe(url);
      for (let change = 0; change < CHANGES; change++) {
        revision += 1;
        const changed = (revision * 7919) % INSTANCES;
        const temporary = `${file}.tmp`;
        writeFileSync(temporary, entries((i) => (i === changed ? String(revision) : '0')));
        const updated = events.next('REGISTRATION_UPDATED');
        watcher.skip();
        const floorParsed = watcher.next(/^parsed /);
        const renamed = performance.now();
        renameSync(temporary, file);
        changes.push((await updated) - renamed);
        watchFloor.push((await floorParsed).at - renamed);
        // Back to the base file, so the next change is again one entry against all-zero.
        writeFileSync(temporary, entries(() => '0'));
        const reverted = events.next('REGISTRATION_UPDATED');
        watcher.skip();
        const floorReverted = watcher.next(/^parsed /);
        renameSync(temporary, file);
        await Promise.all([reverted, floorReverted]);
      }
      events.close();
      await stopProcess(watcher.child);
      await stopProcess(vigil.child);
      console.log(`  round ${round_}: initial ${Math.round(initial.at(-1)!)} ms (parse floor ${Math.round(parseFloor.at(-1)!)} ms); `
        + `changes ${changes.slice(-CHANGES).map(Math.round).join(', ')} ms (watch floor ${watchFloor.slice(-CHANGES).map(Math.round).join(', ')} ms)`);
    }
  } finally {
    // A bare node process ended by SIGTERM has no exit code, only a signal: stop only the live ones.
    await Promise.all(started.filter((child) => child.exitCode === null && child.signalCode === null).map(stopProcess));
    rmSync(dir, { recursive: true, force: true });
  }
  const [init, floor, change, notice] = [initial, parseFloor, changes, watchFloor].map(median) as [number, number, number, number];
  console.log(`discovery (medians): initial ${round(init)} ms, bare read+parse ${round(floor)} ms; change ${round(change)} ms, bare watch+debounce+parse ${round(notice)} ms`);
  return [
    { ...INITIAL, value: init, ratio: init / floor, baseline: `bare node process starting, reading and parsing the file: ${Math.round(floor)} ms (median of ${ROUNDS})` },
    { ...CHANGE, value: change, ratio: change / notice, baseline: `bare node process watching the directory, waiting the same 200 ms debounce, reading and parsing: ${Math.round(notice)} ms (median of ${changes.length})` },
  ];
}
