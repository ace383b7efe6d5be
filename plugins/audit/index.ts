import { SHARED_STATE, definePlugin, type ConfigSchema, type PluginContext, type Principal, type SharedLog } from '../../core/plugin-api.js';
import { METRICS } from '../../core/kits/services/index.js';
import { auditApi } from './api-description.js';
import { auditSchema, type AuditConfig } from './config.js';
import { sanitizePatterns } from './detail.js';
import { CONFIG_RELOAD, SIGN_IN, SIGN_IN_FAILED, SIGN_OUT, SYSTEM, type AuditRecord } from './entry.js';
import { FailedSignIns } from './failed-sign-ins.js';
import { FileSink } from './file-sink.js';
import { RequestEntries, actorOf } from './request-entries.js';
import { auditRoutes } from './routes.js';
import { AuditTrail } from './trail.js';

/** How often a node of a cluster reads what the others recorded (live streams; `GET /audit` also reads first). */
const PULL_MS = 1000;

/** An entry that is not a request to a route. */
function eventEntry(action: string, actor: AuditRecord['actor'], address: string | null, detail: unknown): AuditRecord {
  return {
    timestamp: new Date().toISOString(), actor, address, action,
    method: null, path: null, instance: null, application: null, status: null, durationMs: null, detail,
  };
}

/**
 * `audit`: the audit trail (docs/audit.md). Every request that changes something, every proxied
 * call but a read, every read of a sensitive endpoint, every refused request (403), sign-ins,
 * sign-outs, failed sign-ins and config reloads become entries: kept in memory (newest
 * `max-entries`), in the cluster's shared log with `cluster-redis`, and in `audit.file` as JSON
 * lines. Served to admins by `GET /audit`, as a list or live. Recording never holds up or stops
 * the request it is about; what cannot be recorded is logged and counted.
 */
export default definePlugin<AuditConfig>({
  name: 'audit',
  version: '1.0.0',
  configSchema: auditSchema as unknown as ConfigSchema<AuditConfig>,
  create(ctx) {
    const config = (): AuditConfig => ctx.config;
    const about = ctx.settings.about().config;
    const sanitize = sanitizePatterns((about['metadata-keys-to-sanitize'] as string[] | undefined) ?? []);
    const file = ctx.config.file === undefined ? undefined : new FileSink(ctx.config.file, ctx.config['max-file-size'], ctx.config['max-files']);
    let shared: SharedLog | undefined;
    const trail = new AuditTrail(ctx.config['max-entries'], ctx.log, file, () => (shared ??= ctx.services.use(SHARED_STATE)?.log?.('audit', ctx.config['max-entries'])));
    const record = (entry: AuditRecord): void => {
      void trail.record(entry);
    };
    const entries = new RequestEntries({
      registry: ctx.registry,
      failedSignIns: new FailedSignIns(),
      includeRegistrations: () => config()['include-registrations'],
      sanitize: () => sanitize,
    });

    ctx.http.hook('pre', (req) => {
      entries.arrived(req);
    });
    ctx.http.onResponse((req, res) => {
      const entry = entries.ended(req, res);
      if (entry) record(entry);
    });
    const signFailures = new FailedSignIns();
    const principalEntry = (action: string) => ({ principal, address }: { principal: Principal; address: string | null }) =>
      record(eventEntry(action, actorOf(principal), address, null));
    ctx.bus.on('principal.signed-in', principalEntry(SIGN_IN));
    ctx.bus.on('principal.signed-out', principalEntry(SIGN_OUT));
    ctx.bus.on('principal.sign-in-failed', ({ via, address, user, reason }) => {
      const failures = signFailures.note(address ?? 'unknown', user ?? '');
      if (failures !== undefined) record(eventEntry(SIGN_IN_FAILED, { name: user ?? 'unknown', kind: 'user', via }, address, { failures, reason }));
    });
    ctx.bus.on('config.reloaded', (report) => record(eventEntry(CONFIG_RELOAD, SYSTEM, null, report)));

    ctx.services.contribute(METRICS, {
      name: 'vigil_audit_failures_total',
      type: 'counter',
      help: 'Audit entries that could not be recorded (the shared trail or the audit file failed); the request itself ran.',
      collect: () => [{ value: trail.failures }],
    });
    auditRoutes(ctx as PluginContext<unknown>, trail);
    auditApi(ctx.services);

    let timer: NodeJS.Timeout | undefined;
    return {
      async start() {
        if (!trail.shared) return;
        await trail.pull().catch((error: unknown) => ctx.log.warn(`the cluster's audit trail could not be read at start: ${String(error)}`));
        timer = setInterval(() => void trail.pull().catch(() => undefined), PULL_MS);
        timer.unref();
      },
      async stop() {
        clearInterval(timer);
        await trail.close();
      },
      reload(next) {
        // `include-registrations` is read per request; the rest shapes what start made.
        return (['max-entries', 'file', 'max-file-size', 'max-files'] as const).filter((key) => next[key] !== ctx.config[key]);
      },
    };
  },
});
