import type { Application, Instance } from 'vigil/domain';
import { compareStatus, countStatuses, type StatusCounts } from './status';

export interface AppFilter {
  /** Words that must all appear in the application name or the instance (id, URLs, version, tags). */
  readonly text: string;
  /** Statuses to show; empty shows all. */
  readonly statuses: readonly string[];
  /** `key=value` of one tag, or '' for any. */
  readonly tag: string;
}

export const NO_FILTER: AppFilter = { text: '', statuses: [], tag: '' };

export const isFiltering = (filter: AppFilter): boolean => filter.text.trim() !== '' || filter.statuses.length > 0 || filter.tag !== '';

export interface AppRow {
  readonly kind: 'app';
  readonly key: string;
  readonly app: Application;
  readonly counts: StatusCounts;
  /** Instances that pass the filter. */
  readonly shown: number;
  readonly expanded: boolean;
}

export interface InstanceRow {
  readonly kind: 'instance';
  readonly key: string;
  readonly instance: Instance;
}

/** A heading over the applications of one metadata `group` (shown only when instances carry one). */
export interface GroupRow {
  readonly kind: 'group';
  readonly key: string;
  readonly name: string;
}

export type Row = AppRow | InstanceRow | GroupRow;

export interface RowList {
  readonly rows: readonly Row[];
  readonly apps: number;
  readonly instances: number;
}

// Instances and applications are immutable snapshots: what is derived from one is derived once.
const sortedCache = new WeakMap<Application, readonly Instance[]>();
const countsCache = new WeakMap<Application, StatusCounts>();
const searchCache = new WeakMap<Instance, string>();

export function sortedInstances(app: Application): readonly Instance[] {
  let sorted = sortedCache.get(app);
  if (!sorted) {
    // Plain comparison of precomputed labels: an application may hold thousands of instances.
    const labels = new Map(app.instances.map((instance) => [instance, labelOf(instance)]));
    sorted = [...app.instances].sort((a, b) => compareStatus(a.statusInfo.status, b.statusInfo.status) || compareLabels(labels.get(a)!, labels.get(b)!));
    sortedCache.set(app, sorted);
  }
  return sorted;
}

export function statusCounts(app: Application): StatusCounts {
  let counts = countsCache.get(app);
  if (!counts) {
    counts = countStatuses(app.instances.map((instance) => instance.statusInfo.status));
    countsCache.set(app, counts);
  }
  return counts;
}

/** What names an instance in a list: where it serves, else where its health is checked. */
export function labelOf(instance: Instance): string {
  const registration = instance.registration;
  const url = registration?.serviceUrl || registration?.managementUrl || registration?.healthUrl || instance.id;
  return url.replace(/^https?:\/\//, '').replace(/\/$/, '');
}

function searchTextOf(instance: Instance): string {
  let text = searchCache.get(instance);
  if (text === undefined) {
    const r = instance.registration;
    const tags = Object.entries(instance.tags).map(([key, value]) => `${key}=${value}`);
    text = [instance.id, r?.healthUrl, r?.managementUrl, r?.serviceUrl, instance.buildVersion, ...tags].join(' ').toLowerCase();
    searchCache.set(instance, text);
  }
  return text;
}

const appOrderCache = new WeakMap<readonly Application[], readonly Application[]>();

/** The applications worst first, sorted once per list (the store hands out a new list on every change). */
export function sortedApps(apps: readonly Application[]): readonly Application[] {
  let sorted = appOrderCache.get(apps);
  if (!sorted) {
    sorted = [...apps].sort(compareApps);
    appOrderCache.set(apps, sorted);
  }
  return sorted;
}

/** Worst status first, then by name. */
export function compareApps(a: Application, b: Application): number {
  return compareStatus(a.status, b.status) || compareText(a.name, b.name);
}

/**
 * The rows of the applications list: each application (worst first) followed by its instances
 * (worst first) when expanded. With a filter, an application is listed when its name matches
 * the words or any of its instances passes; its rows then show only the instances that pass.
 */
export function buildRows(apps: readonly Application[], filter: AppFilter, isExpanded: (name: string) => boolean): RowList {
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  const statuses = filter.statuses.length > 0 ? new Set(filter.statuses) : undefined;
  const [tagKey, tagValue] = splitTag(filter.tag);
  const rows: Row[] = [];
  let appCount = 0;
  let instanceCount = 0;
  const filtering = words.length > 0 || statuses !== undefined || tagKey !== undefined;
  const ordered = groupedApps(sortedApps(apps));
  let group: string | null | undefined;
  for (const app of ordered) {
    // A group's heading goes in once its first listed application does.
    const own = ordered.grouped ? groupOf(app) : undefined;
    const heading = (): void => {
      if (own === undefined || own === group) return;
      group = own;
      rows.push({ kind: 'group', key: `group:${own ?? ''}`, name: own ?? 'Other' });
    };
    if (!filtering) {
      heading();
      // Nothing to match: counts come from the snapshot, and only open groups need their instances sorted.
      const expanded = isExpanded(app.name);
      appCount += 1;
      instanceCount += app.instances.length;
      rows.push({ kind: 'app', key: `app:${app.name}`, app, counts: statusCounts(app), shown: app.instances.length, expanded });
      if (expanded) for (const instance of sortedInstances(app)) rows.push({ kind: 'instance', key: instance.id, instance });
      continue;
    }
    const name = app.name.toLowerCase();
    const open = words.filter((word) => !name.includes(word));
    const shown = sortedInstances(app).filter((instance) => {
      if (statuses && !statuses.has(instance.statusInfo.status)) return false;
      if (tagKey !== undefined && instance.tags[tagKey] !== tagValue) return false;
      if (open.length === 0) return true;
      const text = searchTextOf(instance);
      return open.every((word) => text.includes(word));
    });
    if (shown.length === 0) continue;
    heading();
    appCount += 1;
    instanceCount += shown.length;
    const expanded = isExpanded(app.name);
    rows.push({ kind: 'app', key: `app:${app.name}`, app, counts: statusCounts(app), shown: shown.length, expanded });
    if (expanded) for (const instance of shown) rows.push({ kind: 'instance', key: instance.id, instance });
  }
  return { rows, apps: appCount, instances: instanceCount };
}

const groupCache = new WeakMap<Application, string | null>();

/** An application's metadata `group` (SBA groups the list by it): the first instance's that has one, else null. */
export function groupOf(app: Application): string | null {
  let group = groupCache.get(app);
  if (group === undefined) {
    group = app.instances.find((instance) => instance.registration?.metadata.group)?.registration?.metadata.group ?? null;
    groupCache.set(app, group);
  }
  return group;
}

type Grouped = readonly Application[] & { readonly grouped?: true };
const groupedCache = new WeakMap<readonly Application[], Grouped>();

/** The applications by group (alphabetically, those without one last), each group keeping the given order; the same list when none has a group. */
function groupedApps(apps: readonly Application[]): Grouped {
  let grouped = groupedCache.get(apps);
  if (!grouped) {
    grouped = apps.some((app) => groupOf(app) !== null)
      ? Object.assign([...apps].sort((a, b) => compareGroups(groupOf(a), groupOf(b))), { grouped: true as const })
      : apps;
    groupedCache.set(apps, grouped);
  }
  return grouped;
}

function compareGroups(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return compareText(a, b);
}

/** Every `key=value` tag present, sorted, for the tag filter. */
export function tagOptions(apps: readonly Application[]): string[] {
  const tags = new Set<string>();
  for (const app of apps) for (const instance of app.instances) for (const [key, value] of Object.entries(instance.tags)) tags.add(`${key}=${value}`);
  return [...tags].sort(compareText);
}

function splitTag(tag: string): [string | undefined, string | undefined] {
  if (!tag) return [undefined, undefined];
  const at = tag.indexOf('=');
  return [tag.slice(0, at), tag.slice(at + 1)];
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
export const compareText = (a: string, b: string): number => collator.compare(a, b);

const compareLabels = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
