import {
  applicationLines, applicationTitle, escapes, groupLines, groupTitle, instanceText, summaryText, type InstanceNotification, type MessageTemplates, type Notification,
} from '../../core/kits/notify-channel/index.js';

/** A mail: subject, plain text and HTML, the same facts in both parts. */
export interface MailContent {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

const { html: h, oneLine } = escapes;
/** Health details deeper or wider than this are cut: a status mail is not a dump. */
const MAX_DEPTH = 4;
const MAX_ENTRIES = 50;

/**
 * The mail of a notification, laid out as SBA's (`status-changed.html`): a heading with the
 * subject, "Instance <id> changed status from UP to DOWN" (the id linked to the dashboard when a
 * base URL is known), the status details, and the registration's URLs; plus the same as plain
 * text. Every value is HTML-escaped in the HTML part; the subject is one line.
 */
export function mailContent(notification: Notification, templates: MessageTemplates, baseUrl: string): MailContent {
  if (notification.kind === 'summary') {
    const subject = summaryText(notification);
    const names = notification.instances.map((i) => `${i.name} (${i.id})`);
    return {
      subject,
      text: [subject, '', ...names].join('\n'),
      html: page(subject, `<h1>${h(subject)}</h1>\n<ul>\n${names.map((name) => `<li>${h(name)}</li>`).join('\n')}\n</ul>`),
    };
  }
  if (notification.kind === 'application') {
    const subject = applicationTitle(notification, oneLine);
    const link = baseUrl ? `${baseUrl}/#/applications/${encodeURIComponent(notification.application)}` : '';
    return {
      subject,
      text: [subject, ...(link ? [link] : []), '', ...applicationLines(notification, oneLine)].join('\n'),
      html: page(subject, [
        `<h1>${h(subject)}</h1>`,
        ...(link ? [`<p><a href="${h(link)}">${h(notification.application)}</a></p>`] : []),
        `<ul>\n${applicationLines(notification, h).map((line) => `<li>${line}</li>`).join('\n')}\n</ul>`,
      ].join('\n')),
    };
  }
  if (notification.kind === 'group') {
    const subject = groupTitle(notification);
    const lines = groupLines(notification, escapes.plain);
    return {
      subject,
      text: [subject, '', ...lines].join('\n'),
      html: page(subject, `<h1>${h(subject)}</h1>\n<ul>\n${groupLines(notification, h).map((line) => `<li>${line}</li>`).join('\n')}\n</ul>`),
    };
  }
  return instanceMail(notification, templates, baseUrl);
}

function instanceMail(n: InstanceNotification, templates: MessageTemplates, baseUrl: string): MailContent {
  const subject = instanceText(n, templates, oneLine);
  const link = baseUrl ? `${baseUrl}/#/instances/${encodeURIComponent(n.instance.id)}/` : '';
  const during = n.afterMaintenance !== undefined ? ` during maintenance ${n.afterMaintenance}` : '';
  const what = n.type === 'STATUS_CHANGED' ? `changed status from ${n.from} to ${n.to}${during}` : n.type === 'REGISTERED' ? 'has registered' : 'has deregistered';
  const urls: [string, string][] = [];
  for (const [label, url] of [['Service Url', n.instance.serviceUrl], ['Health Url', n.instance.healthUrl], ['Management Url', n.instance.managementUrl]] as const) {
    if (url) urls.push([label, url]);
  }
  const details = n.instance.statusInfo.details;
  const text = [
    subject,
    '',
    `Instance ${n.instance.id} ${what}`,
    ...(link ? [link] : []),
    '',
    'Status Details',
    ...detailLines(details, '  ', 0),
    '',
    'Registration',
    ...urls.map(([label, url]) => `  ${label}: ${url}`),
  ].join('\n');
  const idHtml = link ? `<a href="${h(link)}">${h(n.instance.id)}</a>` : h(n.instance.id);
  const body = [
    `<h1>${h(subject)}</h1>`,
    `<p>Instance ${idHtml} ${h(what)}</p>`,
    '<h2>Status Details</h2>',
    detailList(details, 0),
    '<h2>Registration</h2>',
    '<table>',
    ...urls.map(([label, url]) => `<tr><td>${label}</td><td><a href="${h(url)}">${h(url)}</a></td></tr>`),
    '</table>',
  ].join('\n');
  return { subject, text, html: page(subject, body) };
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>\n<html>\n<head><meta charset="utf-8"><title>${h(title)}</title></head>\n<body>\n${body}\n</body>\n</html>\n`;
}

function entriesOf(value: Readonly<Record<string, unknown>>): [string, unknown][] {
  return Object.entries(value).slice(0, MAX_ENTRIES);
}

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const scalar = (value: unknown) => oneLine(typeof value === 'string' ? value : JSON.stringify(value) ?? String(value)).slice(0, 300);

/** SBA's nested `<dl>` of the status details. */
function detailList(details: Readonly<Record<string, unknown>>, depth: number): string {
  const items = entriesOf(details).map(([key, value]) => {
    const inner = isMap(value) && depth < MAX_DEPTH ? detailList(value, depth + 1) : h(scalar(value));
    return `<dt>${h(key)}</dt><dd>${inner}</dd>`;
  });
  return `<dl>${items.join('')}</dl>`;
}

function detailLines(details: Readonly<Record<string, unknown>>, indent: string, depth: number): string[] {
  return entriesOf(details).flatMap(([key, value]) => (isMap(value) && depth < MAX_DEPTH
    ? [`${indent}${oneLine(key)}:`, ...detailLines(value, `${indent}  `, depth + 1)]
    : [`${indent}${oneLine(key)}: ${scalar(value)}`]));
}
