import {
  applicationTitle, escapes, instanceText, summaryText, type ApplicationNotification, type InstanceNotification, type MessageTemplates, type SummaryNotification,
} from '../../core/kits/notify-channel/index.js';

/** An alert as Alertmanager's API v2 takes it (`POST /api/v2/alerts`, an array of these). */
export interface Alert {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly generatorURL: string;
}

/** What is kept of an alert between re-sends (in `SHARED_STATE`, so any node can re-send it). */
export interface KeptAlert {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly startsAt: string;
  readonly generatorURL: string;
  /** When it was resolved; null while firing. */
  readonly resolvedAt: string | null;
}

const SEVERITY: Readonly<Record<string, string>> = { DOWN: 'critical', OFFLINE: 'critical' };
export const INSTANCE_ALERT = 'VigilInstanceDown';
export const STORM_ALERT = 'VigilLostContact';
export const APPLICATION_ALERT = 'VigilApplicationDegraded';

/** The alert of an instance in a failing status: labels identify it (so a severity change is a new alert). */
export function instanceAlert(n: InstanceNotification, templates: MessageTemplates, extraLabels: Record<string, string>): KeptAlert {
  return {
    labels: {
      ...extraLabels,
      alertname: INSTANCE_ALERT,
      application: n.instance.name,
      instance_id: n.instance.id,
      severity: SEVERITY[n.to] ?? 'warning',
    },
    annotations: {
      summary: instanceText({ ...n, reminder: 0 }, templates, escapes.plain),
      description: `Instance ${n.instance.name} (${n.instance.id}) went from ${n.from} to ${n.to}`,
      status: n.to,
      health_url: n.instance.healthUrl,
      ...(n.afterMaintenance !== undefined ? { after_maintenance: n.afterMaintenance } : {}),
    },
    startsAt: n.timestamp,
    generatorURL: `${n.baseUrl}/#/instances/${encodeURIComponent(n.instance.id)}`,
    resolvedAt: null,
  };
}

/** A fleet expectation not met: one alert per application, labelled with its name, firing from when it fell short. */
export function applicationAlert(n: ApplicationNotification, extraLabels: Record<string, string>): KeptAlert {
  return {
    labels: { ...extraLabels, alertname: APPLICATION_ALERT, application: n.application, severity: 'critical' },
    annotations: {
      summary: applicationTitle(n, escapes.plain),
      description: `${n.up} of ${n.total} instances of ${n.application} are UP; the expectation requires ${n.required}`,
      up: String(n.up),
      required: String(n.required),
    },
    startsAt: n.since,
    generatorURL: `${n.baseUrl}/#/applications/${encodeURIComponent(n.application)}`,
    resolvedAt: null,
  };
}

export function stormAlert(summary: SummaryNotification, extraLabels: Record<string, string>): KeptAlert {
  return {
    labels: { ...extraLabels, alertname: STORM_ALERT, severity: 'critical' },
    annotations: { summary: summaryText(summary), description: `${summary.count} of ${summary.total} instances went OFFLINE within one status interval` },
    startsAt: summary.timestamp,
    generatorURL: `${summary.baseUrl}/`,
    resolvedAt: null,
  };
}

/**
 * The wire form: a firing alert ends `4 × resend interval` from now unless re-sent (as Prometheus
 * does), so if Vigil goes away its alerts resolve by themselves; a resolved one ends when it was resolved.
 */
export function wireAlert(kept: KeptAlert, resendMs: number, now = Date.now()): Alert {
  return {
    labels: kept.labels,
    annotations: kept.annotations,
    startsAt: kept.startsAt,
    endsAt: kept.resolvedAt ?? new Date(now + 4 * resendMs).toISOString(),
    generatorURL: kept.generatorURL,
  };
}

export const sameLabels = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([key, value]) => b[key] === value);
