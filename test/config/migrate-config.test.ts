import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import { DEFAULT_PLUGINS } from '../../config/defaults.js';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { migrateConfig } from '../../config/migrate/migrate-config.js';
import { readSpringConfig } from '../../config/migrate/spring-source.js';
import { parseCli } from '../../bin/cli.js';
import type { VigilPlugin } from '../../core/plugin-api.js';
import { prepare } from '../../core/prepare.js';
import type { BuiltinPlugins } from '../../core/plugin-resolve.js';
import { builtinPlugins } from '../../bin/builtin-plugins.js';
import { repoRoot } from '../support/paths.js';
import {
  CONSUL_SAMPLE, EUREKA_DOC_ADMIN, EUREKA_SAMPLE, HAZELCAST_SAMPLE, MAIL_DOC, NOTIFIERS_DOC_TABLE, SERVER_DOC_TABLE, SERVLET_SAMPLE_UI, SSRF_DOC,
} from './migrate-examples.js';

/**
 * The keys CONTRACT §5 fixes for the discovery plugins. The notify plugins are the real ones:
 * their own schemas check every key the conversion writes (issue 29 carries more than the contract's).
 */
const DISCOVERY_KEYS = ['refresh-interval', 'services', 'ignored-services', 'instances-metadata', 'ignored-instances-metadata', 'management-context-path', 'health-endpoint-path', 'max-removal'];
const CONTRACT_KEYS: Readonly<Record<string, readonly string[]>> = {
  'discovery-eureka': ['url', ...DISCOVERY_KEYS],
  'discovery-consul': ['url', 'token', ...DISCOVERY_KEYS],
  'discovery-kubernetes': ['namespaces', 'label-selector', 'api-url', 'token-file', 'ca-file', ...DISCOVERY_KEYS],
};

/** Stand-ins for the plugins of CONTRACT §5 that refuse any key the contract does not name. */
function contractStandIns(): BuiltinPlugins {
  const plugins: Record<string, BuiltinPlugins[string]> = {};
  for (const [name, keys] of Object.entries(CONTRACT_KEYS)) {
    const plugin: VigilPlugin<unknown> = {
      name,
      configSchema: {
        async validate(value: unknown) {
          const unknown = Object.keys((value ?? {}) as object).filter((key) => !keys.includes(key));
          if (unknown.length > 0) throw Object.assign(new Error(`unknown key(s): ${unknown.join(', ')}`), { path: '' });
          return value;
        },
      },
      setup() {},
    };
    plugins[name] = { section: name, load: async () => plugin };
  }
  return plugins;
}

/** Converts, then checks the result the way `vigil --check-config` would; returns the YAML and its parsed form. */
async function migrateAndCheck(text: string, fileName: string, env: NodeJS.ProcessEnv = {}): Promise<{ yaml: string; config: Record<string, any> }> { // eslint-disable-line @typescript-eslint/no-explicit-any -- asserted key by key
  const yaml = migrateConfig(text, { fileName });
  const config = parse(yaml) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- as above
  await prepare({ config, cwd: repoRoot, env, builtins: { ...builtinPlugins, ...contractStandIns() } });
  return { yaml, config };
}

test('consul sample: the active profile document is merged, the other named as left out; Consul becomes discovery-consul, Spring Security basic-auth', async () => {
  const { yaml, config } = await migrateAndCheck(CONSUL_SAMPLE, 'application.yml');
  assert.equal(config.plugins, [...DEFAULT_PLUGINS, 'basic-auth', 'discovery-consul']);
  assert.equal(config['discovery-consul'], { url: 'http://localhost:8500', 'ignored-services': ['consul'] });
  assert.equal(config['basic-auth'], { users: [{ username: 'user', password: 'password' }] });
  assert.match(yaml, '# Profiles taken as active: secure.');
  assert.match(yaml, '# Left out: the document for profile "insecure"');
  assert.match(yaml, /# Not Spring Boot Admin server settings, left out: spring\.application\.name, .*management\.endpoints\.web\.base-path.*spring\.cloud\.consul\.discovery\.tags/);
});

test('eureka sample: ${VAR:default} becomes ${VAR:-default}; 1.x keys are listed with the reason', async () => {
  const { yaml, config } = await migrateAndCheck(EUREKA_SAMPLE, 'application.yml');
  assert.equal(config['discovery-eureka'], { url: '${EUREKA_SERVICE_URL:-http://localhost:8761}/eureka/', 'refresh-interval': '5s' });
  assert.ok(config.plugins.includes('discovery-eureka'));
  assert.match(yaml, '#   spring.boot.admin.routes.endpoints: a Spring Boot Admin 1.x setting, gone since 2.0');
  assert.match(yaml, '#   spring.boot.admin.turbine.clusters: a Spring Boot Admin 1.x setting');
  assert.match(yaml, 'eureka.instance.leaseRenewalIntervalInSeconds');
  // Vigil reads the converted placeholder itself: with the variable set and without it.
  const withVar = await prepare({ config, cwd: repoRoot, env: { EUREKA_SERVICE_URL: 'http://eureka:8761' }, builtins: { ...builtinPlugins, ...contractStandIns() } });
  assert.equal(withVar.plugins.find((p) => p.plugin.name === 'discovery-eureka')!.config, { url: 'http://eureka:8761/eureka/', 'refresh-interval': '5s' });
});

test('hazelcast sample: Boot 2.3 `spring.profiles` documents; the client keys are SBA\'s client, not carried', async () => {
  const { yaml, config } = await migrateAndCheck(HAZELCAST_SAMPLE, 'application.yml');
  assert.equal(config['basic-auth'], { users: [{ username: 'user', password: 'password' }] });
  for (const key of ['client.url', 'client.username', 'client.password', 'client.instance.metadata.user.name', 'client.instance.metadata.user.password']) {
    assert.match(yaml, `#   spring.boot.admin.${key}: SBA's client, registering this server with a server; Vigil does not register with itself`);
  }
  assert.match(yaml, 'logging.file');
});

test('servlet sample UI documents: every ui key is listed, nothing else is produced', async () => {
  const { yaml, config } = await migrateAndCheck(SERVLET_SAMPLE_UI, 'application.yml');
  assert.equal(Object.keys(config), ['plugins']);
  assert.match(yaml, "#   spring.boot.admin.ui.external-views[0].label: Vigil's dashboard has no such setting");
  assert.match(yaml, '#   spring.boot.admin.ui.external-views[0].children[0].url:');
  assert.match(yaml, '#   spring.boot.admin.ui.view-settings[0].enabled:');
});

test('SSRF protection doc: both snippets merge into the kernel key', async () => {
  const { config } = await migrateAndCheck(SSRF_DOC, 'application.yml');
  assert.equal(config['ssrf-protection'], { enabled: true, 'allowed-cidrs': ['192.168.1.0/24', '10.0.0.0/8', '172.16.0.0/12', 'fd00::/8'], 'allowed-schemes': ['http', 'https', 'grpc'] });
});

test('mail doc (application.properties): spring.mail.host switches the mail notifier on', async () => {
  const { config } = await migrateAndCheck(MAIL_DOC, 'application.properties');
  assert.equal(config['notify-mail'], { to: ['admin@example.com'], host: 'smtp.example.com' });
  assert.equal(config.plugins.slice(-2), ['notify', 'notify-mail']);
});

test('server options table: every monitor, proxy, probe and sanitising key carried; ui keys listed', async () => {
  const { yaml, config } = await migrateAndCheck(SERVER_DOC_TABLE, 'application.properties');
  assert.is(config['context-path'], '/admin');
  assert.equal(config.monitor, {
    'status-interval': '10000ms', 'status-lifetime': '10000ms', 'info-interval': '1m', 'info-lifetime': '1m', 'default-timeout': 10000,
    timeout: { health: 2000 }, 'default-retries': 0, retries: { 'actuator-index': 1 },
  });
  assert.equal(config['metadata-keys-to-sanitize'], ['.*password$', '.*secret$', '.*key$', '.*token$', '.*credentials.*', '.*vcap_services$']);
  assert.is(config['probed-endpoints'].length, 14);
  assert.ok(config['probed-endpoints'].includes('threaddump:dump'));
  assert.equal(config.proxy, { 'ignored-headers': ['Cookie', 'Set-Cookie', 'Authorization'] });
  for (const key of ['public-url', 'brand', 'title', 'login-icon', 'favicon', 'favicon-danger', 'remember-me-enabled']) assert.match(yaml, `#   spring.boot.admin.ui.${key}:`);
  assert.match(yaml, 'spring.boot.admin.ui.public-url: the dashboard links everything relative to its own page');
});

test('notifier tables: each notifier Vigil has becomes its plugin with the contract\'s keys; the rest listed with the reason', async () => {
  const { yaml, config } = await migrateAndCheck(NOTIFIERS_DOC_TABLE, 'application.properties', { OPSGENIE_KEY: 'k' });
  assert.equal(config.plugins.slice(DEFAULT_PLUGINS.length), ['notify', 'notify-slack', 'notify-teams', 'notify-discord', 'notify-telegram', 'notify-opsgenie', 'notify-pagerduty']);
  assert.equal(config['notify-slack'], { 'webhook-url': 'https://hooks.slack.com/services/T000/B000/XXXX', channel: 'ops', 'ignore-changes': ['UNKNOWN:UP'] });
  assert.equal(config['notify-teams'], { 'webhook-url': 'https://example.webhook.office.com/webhookb2/abc' });
  assert.equal(config['notify-telegram'], { 'auth-token': '123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11', 'chat-id': '@ops' });
  assert.equal(config['notify-opsgenie'], { 'api-key': '${OPSGENIE_KEY}', url: 'https://api.opsgenie.com/v2/alerts', tags: ['prod'] });
  assert.equal(config['notify-pagerduty'], { 'routing-key': '0123456789abcdef0123456789abcdef' });
  assert.match(yaml, "#   spring.boot.admin.notify.pagerduty.url: SBA's PagerDuty Events API v1 URL");
  assert.match(yaml, '#   spring.boot.admin.notify.telegram.parse_mode: notify-telegram sends');
  assert.equal(config['notify-discord'], { 'webhook-url': 'https://discord.com/api/webhooks/1/abc', tts: false });
  assert.match(yaml, '#   spring.boot.admin.notify.hipchat.url: Vigil has no hipchat notifier');
  assert.match(yaml, '#   spring.boot.admin.notify.dingtalk.webhookUrl: Vigil has no dingtalk notifier');
  assert.match(yaml, '#   spring.boot.admin.notify.letschat.enabled: Vigil has no letschat notifier');
  assert.match(yaml, '#   spring.boot.admin.notify.proxy.host: Vigil calls notification services directly');
});

test('eureka doc admin snippets: camelCase keys bind; an unknown discovery key is listed', async () => {
  const { yaml, config } = await migrateAndCheck(EUREKA_DOC_ADMIN, 'application.yml');
  assert.equal(config['discovery-eureka'], { url: 'http://user:password@localhost:8761/eureka/', 'ignored-services': ['eureka', 'config-server', 'gateway'] });
  assert.match(yaml, '#   spring.boot.admin.discovery.instancePreferIp: not a discovery setting Vigil knows');
});

test('relaxed binding: kebab, camel, snake and upper-case keys are one property; the last one wins', () => {
  const text = [
    'spring.boot.admin.monitor.status-interval=1s',
    'spring.boot.admin.monitor.statusLifetime=2s',
    'spring.boot.admin.monitor.INFO_INTERVAL=PT3S',
    'spring.boot.admin.Monitor.info_lifetime=4000',
    'spring.boot.admin.monitor.statusInterval=5s',
    'Server.Port=9090',
  ].join('\n');
  const config = parse(migrateConfig(text, { fileName: 'application.properties' }));
  assert.equal(config.monitor, { 'status-interval': '5s', 'status-lifetime': '2s', 'info-interval': 'PT3S', 'info-lifetime': 4000 });
  assert.is(config.port, 9090);
});

test('placeholders: a property of the file is resolved, an environment name kept, any other name turned into its environment form', () => {
  const text = [
    'spring:',
    '  application: { name: admin }',
    '  mail: { host: "${MAIL_HOST:smtp.local}", password: "${spring.mail.secret-source}", username: "${spring.application.name}" }',
    'server: { port: "${PORT:8080}", servlet: { context-path: /ops } }',
    'spring.boot.admin.context-path: /admin',
    'spring.boot.admin.monitor.default-timeout: 20us',
  ].join('\n');
  const yaml = migrateConfig(text, { fileName: 'application.yaml' });
  const config = parse(yaml);
  assert.equal(config['notify-mail'], { to: ['root@localhost'], host: '${MAIL_HOST:-smtp.local}', user: 'admin', password: '${SPRING_MAIL_SECRET_SOURCE}' });
  assert.is(config.port, '${PORT:-8080}');
  assert.is(config['context-path'], '/ops/admin');
  assert.is(config.monitor['default-timeout'], 1);
  assert.match(yaml, 'Spring would also read it from the environment as SPRING_MAIL_SECRET_SOURCE');
});

test('properties syntax: continuations, escapes, `:` and space separators, indexed lists, #--- documents', () => {
  const text = [
    '# a comment',
    '! another',
    'spring.boot.admin.probed-endpoints[0]=health',
    'spring.boot.admin.probed-endpoints[1]=custom:\\',
    '    custom-path',
    'spring.boot.admin.instance-auth.default-user-name : ops\\u0021',
    'spring.boot.admin.instance-auth.service-map.Shop-App.user-password secret',
    '#---',
    'spring.config.activate.on-profile=dev',
    'server.port=1',
  ].join('\n');
  const source = readSpringConfig(text, 'x.properties');
  assert.equal(source.skippedProfiles, ['dev']);
  const config = parse(migrateConfig(text, { fileName: 'x.properties' }));
  assert.equal(config['probed-endpoints'], ['health', 'custom:custom-path']);
  assert.equal(config['instance-auth'], { 'default-user-name': 'ops!', 'service-map': { 'Shop-App': { 'user-password': 'secret' } } });
  assert.is(config.port, undefined);
  assert.is(parse(migrateConfig(text, { fileName: 'x.properties', profiles: ['dev'] })).port, 1);
});

test('deprecated monitor keys are carried where SBA 2 moved them; status-change-detection-strategy', () => {
  const text = 'spring.boot.admin.monitor.period=3000\nspring.boot.admin.monitor.connect-timeout=2000\nspring.boot.admin.monitor.read-timeout=5000\nspring.boot.admin.monitor.status-change-detection-strategy=FULL\n';
  const yaml = migrateConfig(text, { fileName: 'a.properties' });
  assert.equal(parse(yaml).monitor, { 'status-interval': 3000, 'default-timeout': 5000, 'status-change-detection': 'full' });
  assert.match(yaml, 'from spring.boot.admin.monitor.period, which SBA 2 renamed to status-interval');
});

test('cli: parses the command, prints the config, exit 1 with one line for a missing or broken file', async () => {
  assert.equal(parseCli(['migrate-config', 'a.yml', '--profiles', 'x, y']), {
    ok: true, options: { command: 'migrate-config', checkConfig: false, overrides: {}, migrate: { file: 'a.yml', profiles: ['x', 'y'] } },
  });
  assert.equal(parseCli(['migrate-config']), { ok: false, problems: ['migrate-config takes one file: vigil migrate-config application.yml [--profiles a,b]'] });
  const dir = mkdtempSync(join(tmpdir(), 'vigil-migrate-'));
  writeFileSync(join(dir, 'application.yml'), MAIL_DOC.replace(/=/g, ': '));
  writeFileSync(join(dir, 'broken.yml'), 'a: [1,\n');
  const ok = await run(['migrate-config', join(dir, 'application.yml')]);
  assert.is(ok.code, 0);
  assert.match(ok.stdout, 'notify-mail:');
  const missing = await run(['migrate-config', join(dir, 'nope.yml')]);
  assert.equal([missing.code, missing.stdout], [1, '']);
  assert.match(missing.stderr, /^vigil: migrate-config: cannot read .*nope\.yml: no such file\n$/);
  const broken = await run(['migrate-config', join(dir, 'broken.yml')]);
  assert.is(broken.code, 1);
  assert.match(broken.stderr, /^vigil: migrate-config: .*broken\.yml: YAML: /);
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'vigil.js'), ...args], { cwd: repoRoot });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test.run();
