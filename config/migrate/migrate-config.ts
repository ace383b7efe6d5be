import { basename } from 'node:path';
import { Document, isMap, isPair, isScalar, type Node } from 'yaml';
import { DEFAULT_PLUGINS } from '../defaults.js';
import { normaliseContextPath } from '../kernel-schema.js';
import { isDiscoveryClientKey, mapDiscovery, type DiscoveryClients } from './sba-discovery.js';
import { mapNotifiers, type Keyed } from './sba-notifiers.js';
import { mapServerKey } from './sba-server-keys.js';
import { canonicalSegment, readSpringConfig, type SpringEntry } from './spring-source.js';
import { Migration, displayKey } from './values.js';

export interface MigrateOptions {
  /** The file's name: `.yml`/`.yaml` is read as YAML, anything else as `.properties`. */
  readonly fileName: string;
  /** Profiles to treat as active besides the file's own `spring.profiles.active`. */
  readonly profiles?: readonly string[];
}

/** Keys at the top of the output, in this order; the rest follow in the order they were met. */
const FIRST = ['port', 'host', 'context-path', 'plugins'];

/**
 * `vigil migrate-config`: a Spring Boot Admin server's `application.yml` or `.properties` as a
 * Vigil `registry.config.yaml`, every key Vigil supports carried over (reference §10-§12,
 * CONTRACT §5), with the plugins they need and a comment for each key it cannot carry saying why.
 * Pure: text in, text out. Throws when the file cannot be parsed.
 */
export function migrateConfig(text: string, options: MigrateOptions): string {
  const source = readSpringConfig(text, options.fileName, options.profiles);
  const m = new Migration((canonical) => source.entries.get(canonical));
  const notify: Keyed[] = [];
  const mail: Keyed[] = [];
  const discovery: Keyed[] = [];
  const clients = { eureka: [] as Keyed[], consul: [] as Keyed[], kubernetes: [] as Keyed[] };
  const security = new Map<string, SpringEntry>();
  let servletBase: string | undefined;
  let publicUrl: string | undefined;

  for (const [key, entry] of source.entries) {
    const rest = (from: number): Keyed => ({ entry, rest: canonicalSegments(entry).slice(from), raw: entry.segments.slice(from) });
    const client = isDiscoveryClientKey(key);
    if (key === 'server.port') m.set(['port'], m.number(entry.value, ['port']));
    else if (key === 'server.address') m.set(['host'], m.text(entry.value as string, ['host']));
    else if (key === 'server.servlet.contextpath' || key === 'spring.webflux.basepath') servletBase = m.text(entry.value as string, ['context-path']);
    else if (key === 'spring.profiles.active') continue;
    else if (key.startsWith('spring.boot.admin.')) {
      const admin = rest(3);
      if (admin.rest[0] === 'notify') notify.push(rest(4));
      else if (admin.rest[0] === 'discovery') discovery.push(rest(4));
      else {
        if (key === 'spring.boot.admin.ui.publicurl') publicUrl = m.text(entry.value as string, ['notify-mail', 'base-url']);
        mapServerKey(m, entry, admin.rest, admin.raw);
      }
    } else if (key.startsWith('spring.mail.')) mail.push(rest(2));
    else if (key.startsWith('spring.security.user.')) security.set(key.slice('spring.security.user.'.length), entry);
    else if (client) clients[client].push(rest(client === 'eureka' ? 2 : 3));
    else m.ignored.push(displayKey(entry));
  }

  if (servletBase !== undefined) {
    const admin = m.get(['context-path']);
    const full = normaliseContextPath(`${normaliseContextPath(servletBase)}${typeof admin === 'string' ? normaliseContextPath(admin) : ''}`);
    m.set(['context-path'], full, 'SBA serves under the servlet context path (server.servlet.context-path or spring.webflux.base-path) plus spring.boot.admin.context-path; Vigil takes the whole prefix');
  }
  basicAuth(m, security);
  mapNotifiers(m, notify, mail, publicUrl);
  mapDiscovery(m, discovery, clients as DiscoveryClients);
  m.set(['plugins'], [...DEFAULT_PLUGINS, ...m.plugins]);
  return render(m, source, options.fileName);
}

function canonicalSegments(entry: SpringEntry): string[] {
  return entry.segments.map((segment) => (typeof segment === 'number' ? `[${segment}]` : canonicalSegment(segment)));
}

/**
 * SBA's documented setups protect the server with Spring Security and `spring.security.user`;
 * Vigil's equivalent is the `basic-auth` plugin, with the browser's own sign-in dialog.
 */
function basicAuth(m: Migration, security: ReadonlyMap<string, SpringEntry>): void {
  const name = security.get('name');
  const password = security.get('password');
  for (const [key, entry] of security) if (key !== 'name' && key !== 'password') m.skip(entry, 'basic-auth users are admins or registration clients (role), not Spring Security roles');
  if (!password) {
    if (name) m.skip(name, 'without spring.security.user.password Spring makes a random password at each start; give basic-auth a real one');
    return;
  }
  m.use('basic-auth');
  const username = name ? m.text(name.value as string, ['basic-auth']) : 'user';
  m.set(['basic-auth', 'users'], [{ username, password: m.text(password.value as string, ['basic-auth']) }],
    "from spring.security.user: SBA's documented security setup. Browsers ask for it with their own dialog (no login form); prefer ${ENV} or a `vigil hash-password` hash to a password in this file");
}

function render(m: Migration, source: ReturnType<typeof readSpringConfig>, fileName: string): string {
  const ordered: Record<string, unknown> = {};
  for (const key of FIRST) if (key in m.config) ordered[key] = m.config[key];
  for (const [key, value] of Object.entries(m.config)) if (!(key in ordered)) ordered[key] = value;
  const document = new Document(ordered);
  const header = [
    ` Vigil config converted from ${basename(fileName)} (Spring Boot Admin server) by \`vigil migrate-config\`.`,
    ' Check it with: vigil --check-config --config registry.config.yaml',
  ];
  if (source.activeProfiles.length > 0) header.push(` Profiles taken as active: ${source.activeProfiles.join(', ')}.`);
  for (const profile of source.skippedProfiles) header.push(` Left out: the document for profile "${profile}" (not active; name it with --profiles to include it).`);
  document.commentBefore = header.join('\n');
  for (const [path, notes] of m.notes) attachComment(document, path.split('.'), notes.map((note) => ` ${note}`).join('\n'));
  const footer: string[] = [];
  if (m.unmapped.length > 0) {
    footer.push(' Not carried over:');
    for (const { key, why } of m.unmapped) footer.push(`   ${key}: ${why}`);
  }
  if (m.ignored.length > 0) footer.push(` Not Spring Boot Admin server settings, left out: ${m.ignored.join(', ')}`);
  if (footer.length > 0) document.comment = footer.join('\n');
  return document.toString({ lineWidth: 0 });
}

/** Puts `comment` above the key at `path` (or above its nearest existing parent). */
function attachComment(document: Document, path: readonly string[], comment: string): void {
  let node: Node | null | undefined = document.contents as Node;
  let keyNode: Node | undefined;
  for (const segment of path) {
    if (!isMap(node)) break;
    const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === segment);
    if (!pair) break;
    keyNode = pair.key as Node;
    node = pair.value as Node;
  }
  if (!keyNode) return;
  keyNode.commentBefore = keyNode.commentBefore ? `${keyNode.commentBefore}\n${comment}` : comment;
}
