import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { changeStatusCommand, type Logger } from '../../../core/plugin-api.js';
import type { Attempt, DeliveryTools, MaintenanceWindowFacts } from '../../../core/kits/notify-channel/index.js';
import { SINGLE_NODE_LEASES } from '../../../core/contract/coordination.js';
import { LocalSharedState } from '../../../core/contract/shared-state.js';
import { startTestKernel } from '../../../bin/testing.js';
import type { RecurringWindowConfig } from '../../../plugins/notify/maintenance/config.js';
import { Schedule } from '../../../plugins/notify/maintenance/recurring.js';
import { MaintenanceStore } from '../../../plugins/notify/maintenance/store.js';
import { MaintenanceTracker, type ChangeAfterMaintenance } from '../../../plugins/notify/maintenance/tracker.js';

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);
const span = (occurrence: { start: number; end: number } | undefined) => occurrence && [new Date(occurrence.start).toISOString(), new Date(occurrence.end).toISOString()];

// Europe/Berlin 2027: 28 March 02:00 CET → 03:00 CEST (01:00Z); 31 October 03:00 CEST → 02:00 CET (01:00Z).
// Australia/Sydney 2027: 4 April 03:00 AEDT → 02:00 AEST (16:00Z the day before); 3 October 02:00 AEST → 03:00 AEDT (16:00Z the day before).

test('schedule, spring gap (Berlin): a start at a local time that does not exist opens at the first valid time after it, the same day', () => {
  const nightly = new Schedule('30 2 * * *', 'Europe/Berlin', HOUR);
  assert.equal(span(nightly.next(at('2027-03-27T12:00:00Z'))), ['2027-03-28T01:00:00.000Z', '2027-03-28T02:00:00.000Z'], '03:00 CEST');
  assert.is(nightly.at(at('2027-03-28T00:59:59Z')), undefined);
  assert.equal(span(nightly.at(at('2027-03-28T01:00:00Z'))), ['2027-03-28T01:00:00.000Z', '2027-03-28T02:00:00.000Z']);
  assert.is(nightly.at(at('2027-03-28T02:00:00Z')), undefined, 'the end is exclusive');
  // The next night is back at 02:30 CEST = 00:30Z.
  assert.equal(span(nightly.next(at('2027-03-28T01:00:00Z'))), ['2027-03-29T00:30:00.000Z', '2027-03-29T01:30:00.000Z']);
  const sunday = new Schedule('0 2 * * SUN', 'Europe/Berlin', 2 * HOUR);
  assert.equal(span(sunday.next(at('2027-03-27T12:00:00Z'))), ['2027-03-28T01:00:00.000Z', '2027-03-28T03:00:00.000Z']);
});

test('schedule, autumn repeat (Berlin): a start at a local time that happens twice opens once, at the first; the window lasts its elapsed duration', () => {
  const nightly = new Schedule('30 2 * * *', 'Europe/Berlin', HOUR);
  assert.equal(span(nightly.next(at('2027-10-30T12:00:00Z'))), ['2027-10-31T00:30:00.000Z', '2027-10-31T01:30:00.000Z'], '02:30 CEST');
  assert.is(nightly.at(at('2027-10-31T01:30:00Z')), undefined, 'not again at 02:30 CET');
  assert.equal(span(nightly.next(at('2027-10-31T00:30:00Z'))), ['2027-11-01T01:30:00.000Z', '2027-11-01T02:30:00.000Z'], '02:30 CET the next night');
  // 02:00 CEST plus one elapsed hour ends at 02:00 CET on the wall clock.
  const sunday = new Schedule('0 2 * * SUN', 'Europe/Berlin', HOUR);
  assert.equal(span(sunday.next(at('2027-10-30T12:00:00Z'))), ['2027-10-31T00:00:00.000Z', '2027-10-31T01:00:00.000Z']);
  // An interval pattern runs at both passes of the repeated hour.
  const halfHourly = new Schedule('*/30 * * * *', 'Europe/Berlin', 600_000);
  const starts: string[] = [];
  for (let from = at('2027-10-30T23:50:00Z'); starts.length < 6;) {
    const next = halfHourly.next(from)!;
    starts.push(new Date(next.start).toISOString());
    from = next.start;
  }
  assert.equal(starts, ['2027-10-31T00:00:00.000Z', '2027-10-31T00:30:00.000Z', '2027-10-31T01:00:00.000Z', '2027-10-31T01:30:00.000Z', '2027-10-31T02:00:00.000Z', '2027-10-31T02:30:00.000Z']);
});

test('schedule, a southern zone (Sydney): the October gap and the April repeat', () => {
  const nightly = new Schedule('30 2 * * *', 'Australia/Sydney', HOUR);
  assert.equal(span(nightly.next(at('2027-10-02T00:00:00Z'))), ['2027-10-02T16:00:00.000Z', '2027-10-02T17:00:00.000Z'], '03:00 AEDT');
  assert.equal(span(nightly.next(at('2027-04-03T00:00:00Z'))), ['2027-04-03T15:30:00.000Z', '2027-04-03T16:30:00.000Z'], '02:30 AEDT');
  assert.equal(span(nightly.next(at('2027-04-03T15:30:00Z'))), ['2027-04-04T16:30:00.000Z', '2027-04-04T17:30:00.000Z'], '02:30 AEST the next night, not 02:30 AEST the same night');
  // A window longer than its period: the oldest running occurrence is the one in effect.
  const overlapping = new Schedule('0 * * * *', 'Australia/Sydney', 3 * HOUR);
  assert.equal(span(overlapping.at(at('2027-04-03T12:30:00Z'))), ['2027-04-03T10:00:00.000Z', '2027-04-03T13:00:00.000Z']);
});

const quiet: Logger = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, child: () => quiet };

/**
 * The tracker on a fake clock, stepped a minute at a time: what its channel hook heard and when,
 * and the changes it reported. The registry is a real one (a kernel with rest-api only).
 */
async function run(window: RecurringWindowConfig, from: string, to: string, during: (now: number, set: (status: string) => Promise<void>) => Promise<void>) {
  const tk = await startTestKernel({ plugins: ['rest-api'] });
  try {
    const registry = tk.kernel.registry;
    const { id } = await registry.register({ name: 'orders', healthUrl: 'http://127.0.0.1:9/health', managementUrl: null, serviceUrl: null, source: 'http-api', metadata: {} });
    const set = async (status: string) => void await registry.apply(id, changeStatusCommand({ status, details: {} }));
    await set('UP');
    let now = at(from);
    const heard: string[] = [];
    const reported: string[] = [];
    const state = new LocalSharedState();
    const store = new MaintenanceStore({ state: () => state, recurring: () => [window], maxWindows: () => 10, now: () => now });
    const delivered = async (): Promise<Attempt> => ({ outcome: 'delivered' });
    const tools = { log: quiet } as unknown as DeliveryTools;
    const tracker = new MaintenanceTracker({
      store, registry, state: () => state, leases: () => SINGLE_NODE_LEASES, log: quiet, now: () => now,
      channels: [{
        name: 'recorder', enabled: () => true, tools,
        hook: () => ({
          started: (facts: MaintenanceWindowFacts) => (heard.push(`${stamp(now)} started ${facts.key} until ${facts.end}`), delivered()),
          ended: (facts: MaintenanceWindowFacts, _tools: DeliveryTools, early: boolean) => (heard.push(`${stamp(now)} ended ${facts.key}${early ? ' early' : ''}`), delivered()),
        }),
      }],
      report: async (changes: readonly ChangeAfterMaintenance[], facts: MaintenanceWindowFacts) => {
        for (const change of changes) reported.push(`${stamp(now)} ${change.instance.registration!.name} ${change.from}→${change.to} after ${facts.id}`);
      },
    });
    for (; now <= at(to); now += 60_000) {
      await during(now, set);
      await tracker.tick();
    }
    return { heard, reported };
  } finally {
    await tk.stop();
  }
}

const stamp = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const nightly = (schedule: string, timezone: string, duration = HOUR): RecurringWindowConfig => ({
  name: 'nightly', applications: ['orders'], instances: [], schedule, duration, timezone, reason: 'backups',
});

test('tracker on a fake clock, spring gap (Berlin): the window opens at 03:00 CEST, ends an hour later, and reports the outage it left', async () => {
  const { heard, reported } = await run(nightly('30 2 * * *', 'Europe/Berlin'), '2027-03-27T23:58:00Z', '2027-03-28T02:05:00Z', async (now, set) => {
    if (now === at('2027-03-28T01:30:00Z')) await set('DOWN');
  });
  assert.equal(heard, ['01:00 started nightly@2027-03-28T01:00:00.000Z until 2027-03-28T02:00:00.000Z', '02:00 ended nightly@2027-03-28T01:00:00.000Z']);
  assert.equal(reported, ['02:00 orders UP→DOWN after nightly']);
});

test('tracker on a fake clock, autumn repeat (Berlin): one window at the first 02:30, none at the second', async () => {
  const { heard, reported } = await run(nightly('30 2 * * *', 'Europe/Berlin'), '2027-10-30T23:50:00Z', '2027-10-31T02:40:00Z', async (now, set) => {
    // Back UP before the end: no change is left, nothing is reported.
    if (now === at('2027-10-31T00:40:00Z')) await set('DOWN');
    if (now === at('2027-10-31T01:00:00Z')) await set('UP');
  });
  assert.equal(heard, ['00:30 started nightly@2027-10-31T00:30:00.000Z until 2027-10-31T01:30:00.000Z', '01:30 ended nightly@2027-10-31T00:30:00.000Z']);
  assert.equal(reported, []);
});

test('tracker on a fake clock, Sydney: the October gap opens at 03:00 AEDT', async () => {
  const { heard } = await run(nightly('30 2 * * *', 'Australia/Sydney', 30 * 60_000), '2027-10-02T15:00:00Z', '2027-10-02T17:00:00Z', async () => undefined);
  assert.equal(heard, ['16:00 started nightly@2027-10-02T16:00:00.000Z until 2027-10-02T16:30:00.000Z', '16:30 ended nightly@2027-10-02T16:00:00.000Z']);
});

test.run();
