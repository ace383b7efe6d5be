/**
 * Spring Boot 3.3 actuator bodies of a small service ("billing"), shaped as Boot writes them
 * (field names, nesting, `contexts`, ISO-8601 durations, sanitised `******` values), for the fake
 * instance the dashboard's browser tests and screenshots run against.
 */

const T = (minutes: number) => new Date(Date.UTC(2026, 0, 5, 9, 0, 0) + minutes * 60_000).toISOString();

const bean = (type: string, resource: string | null, dependencies: string[] = [], aliases: string[] = []) => ({ aliases, scope: 'singleton', type, resource, dependencies });

export const BEANS = {
  contexts: {
    billing: {
      beans: {
        billingApplication: bean('com.example.billing.BillingApplication$$SpringCGLIB$$0', null),
        invoiceController: bean('com.example.billing.api.InvoiceController', 'file [/srv/app/classes/com/example/billing/api/InvoiceController.class]', ['invoiceService']),
        invoiceService: bean('com.example.billing.InvoiceService', 'file [/srv/app/classes/com/example/billing/InvoiceService.class]', ['invoiceRepository', 'paymentClient', 'cacheManager']),
        invoiceRepository: bean('com.example.billing.InvoiceRepository', null, ['jdbcTemplate']),
        paymentClient: bean('com.example.billing.payments.PaymentClient', 'file [/srv/app/classes/com/example/billing/payments/PaymentClient.class]', ['restClientBuilder']),
        dataSource: bean('com.zaxxer.hikari.HikariDataSource', 'class path resource [org/springframework/boot/autoconfigure/jdbc/DataSourceConfiguration$Hikari.class]', ['spring.datasource-org.springframework.boot.autoconfigure.jdbc.DataSourceProperties', 'jdbcConnectionDetails']),
        jdbcTemplate: bean('org.springframework.jdbc.core.JdbcTemplate', 'class path resource [org/springframework/boot/autoconfigure/jdbc/JdbcTemplateConfiguration.class]', ['dataSource', 'spring.jdbc-org.springframework.boot.autoconfigure.jdbc.JdbcProperties']),
        cacheManager: bean('org.springframework.cache.caffeine.CaffeineCacheManager', 'class path resource [org/springframework/boot/autoconfigure/cache/CaffeineCacheConfiguration.class]', ['cacheProperties']),
        flyway: bean('org.flywaydb.core.Flyway', 'class path resource [org/springframework/boot/autoconfigure/flyway/FlywayAutoConfiguration$FlywayConfiguration.class]', ['dataSource']),
        restClientBuilder: bean('org.springframework.web.client.RestClient$Builder', 'class path resource [org/springframework/boot/autoconfigure/web/client/RestClientAutoConfiguration.class]', [], ['restClient.Builder']),
        taskScheduler: bean('org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler', 'class path resource [org/springframework/boot/autoconfigure/task/TaskSchedulingConfigurations$TaskSchedulerConfiguration.class]', ['taskSchedulerBuilder']),
      },
    },
  },
};

export const CONFIGPROPS = {
  contexts: {
    billing: {
      beans: {
        'spring.datasource-org.springframework.boot.autoconfigure.jdbc.DataSourceProperties': {
          prefix: 'spring.datasource',
          properties: { url: 'jdbc:postgresql://db.prod.example:5432/billing', username: 'billing', password: '******', generateUniqueName: true, hikari: {} },
          inputs: { url: { value: 'jdbc:postgresql://db.prod.example:5432/billing', origin: '"spring.datasource.url" from property source "application.yml" - 6:10' }, username: { value: 'billing', origin: 'System Environment Property "SPRING_DATASOURCE_USERNAME"' }, password: { value: '******', origin: 'System Environment Property "SPRING_DATASOURCE_PASSWORD"' }, generateUniqueName: {}, hikari: {} },
        },
        'billing-com.example.billing.BillingProperties': {
          prefix: 'billing',
          properties: { currency: 'EUR', reminderDays: 14, paymentProvider: { url: 'https://pay.example.com/v2', apiKey: '******', timeout: 'PT5S' }, countries: ['DE', 'FR', 'NL'] },
          inputs: { currency: { value: 'EUR', origin: '"billing.currency" from property source "application.yml" - 21:15' }, reminderDays: { value: '14', origin: '"billing.reminder-days" from property source "application.yml" - 22:20' } },
        },
        'server-org.springframework.boot.autoconfigure.web.ServerProperties': {
          prefix: 'server',
          properties: { port: 8080, shutdown: 'GRACEFUL', servlet: { encoding: { charset: 'UTF-8', force: false } }, tomcat: { threads: { max: 200, minSpare: 10 } } },
          inputs: { port: { value: '8080', origin: '"server.port" from property source "application.yml" - 2:9' } },
        },
      },
    },
  },
};

export const CONDITIONS = {
  contexts: {
    billing: {
      positiveMatches: {
        DataSourceAutoConfiguration: [{ condition: 'OnClassCondition', message: "@ConditionalOnClass found required classes 'javax.sql.DataSource', 'org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType'" }],
        'DataSourceAutoConfiguration.PooledDataSourceConfiguration': [{ condition: 'PooledDataSourceCondition', message: 'AnyNestedCondition 1 matched 1 did not; NestedCondition on DataSourceAutoConfiguration.PooledDataSourceCondition.PooledDataSourceAvailable PooledDataSource found supported DataSource' }],
        CacheAutoConfiguration: [{ condition: 'OnClassCondition', message: "@ConditionalOnClass found required class 'org.springframework.cache.CacheManager'" }, { condition: 'OnBeanCondition', message: "@ConditionalOnBean (types: org.springframework.cache.interceptor.CacheAspectSupport; SearchStrategy: all) found bean 'cacheInterceptor'" }],
        FlywayAutoConfiguration: [{ condition: 'OnClassCondition', message: "@ConditionalOnClass found required class 'org.flywaydb.core.Flyway'" }, { condition: 'OnPropertyCondition', message: '@ConditionalOnProperty (spring.flyway.enabled) matched' }],
      },
      negativeMatches: {
        RabbitAutoConfiguration: { notMatched: [{ condition: 'OnClassCondition', message: "@ConditionalOnClass did not find required class 'com.rabbitmq.client.Channel'" }], matched: [] },
        LiquibaseAutoConfiguration: { notMatched: [{ condition: 'OnClassCondition', message: "@ConditionalOnClass did not find required class 'liquibase.change.DatabaseChange'" }], matched: [] },
        'DataSourceAutoConfiguration.EmbeddedDatabaseConfiguration': { notMatched: [{ condition: 'EmbeddedDatabaseCondition', message: 'EmbeddedDataSource spring.datasource.url is set' }], matched: [] },
      },
      unconditionalClasses: ['org.springframework.boot.autoconfigure.context.ConfigurationPropertiesAutoConfiguration', 'org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration'],
    },
  },
};

const handler = (className: string, name: string, methods: string[], pattern: string, produces: string[] = ['application/json']) => ({
  handler: `${className}#${name}()`,
  predicate: `{${methods.join(' || ')} [${pattern}]${produces.length > 0 ? `, produces [${produces.join(' || ')}]` : ''}}`,
  details: {
    handlerMethod: { className, name, descriptor: '()Ljava/lang/Object;' },
    requestMappingConditions: { consumes: [], headers: [], methods, params: [], patterns: [pattern], produces: produces.map((mediaType) => ({ mediaType, negated: false })) },
  },
});

export const MAPPINGS = {
  contexts: {
    billing: {
      mappings: {
        dispatcherServlets: {
          dispatcherServlet: [
            handler('com.example.billing.api.InvoiceController', 'list', ['GET'], '/api/invoices'),
            handler('com.example.billing.api.InvoiceController', 'get', ['GET'], '/api/invoices/{id}'),
            handler('com.example.billing.api.InvoiceController', 'create', ['POST'], '/api/invoices'),
            handler('com.example.billing.api.PaymentController', 'pay', ['POST'], '/api/invoices/{id}/payments'),
            handler('org.springframework.boot.autoconfigure.web.servlet.error.BasicErrorController', 'error', [], '/error', []),
            { handler: 'ResourceHttpRequestHandler [classpath [META-INF/resources/webjars/]]', predicate: '/webjars/**', details: null },
          ],
        },
        servletFilters: [
          { servletNameMappings: [], urlPatternMappings: ['/*'], name: 'requestContextFilter', className: 'org.springframework.boot.web.servlet.filter.OrderedRequestContextFilter' },
          { servletNameMappings: [], urlPatternMappings: ['/*'], name: 'characterEncodingFilter', className: 'org.springframework.boot.web.servlet.filter.OrderedCharacterEncodingFilter' },
        ],
        servlets: [{ mappings: ['/'], name: 'dispatcherServlet', className: 'org.springframework.web.servlet.DispatcherServlet' }],
      },
    },
  },
};

export const SCHEDULED_TASKS = {
  cron: [{ runnable: { target: 'com.example.billing.jobs.ReportJob.daily' }, expression: '0 0 6 * * *', nextExecution: { time: T(21 * 60) }, lastExecution: { time: T(-3 * 60), status: 'SUCCESS' } }],
  fixedDelay: [{ runnable: { target: 'com.example.billing.payments.PaymentClient.pollSettlements' }, initialDelay: 0, interval: 30_000, nextExecution: { time: T(1) }, lastExecution: { time: T(0.5), status: 'ERROR', exception: { type: 'java.net.SocketTimeoutException', message: 'Read timed out' } } }],
  fixedRate: [{ runnable: { target: 'com.example.billing.InvoiceService.expireDrafts' }, initialDelay: 10_000, interval: 300_000, nextExecution: { time: T(5) } }],
  custom: [],
};

const exchange = (minutes: number, method: string, path: string, status: number, seconds: number, user?: string) => ({
  timestamp: T(minutes),
  request: { uri: `http://billing-1.prod.example:8080${path}`, method, headers: { accept: ['application/json'], 'user-agent': ['shop/2.8.0'] }, remoteAddress: '10.0.4.17' },
  response: { status, headers: { 'Content-Type': ['application/json'] } },
  ...(user ? { principal: { name: user } } : {}),
  timeTaken: `PT${seconds}S`,
});

export const HTTP_EXCHANGES = {
  exchanges: [
    exchange(1, 'GET', '/api/invoices?customer=4711', 200, 0.023, 'alice'),
    exchange(2, 'POST', '/api/invoices', 201, 0.184, 'alice'),
    exchange(3, 'GET', '/api/invoices/INV-2026-00981', 200, 0.011, 'bob'),
    exchange(4, 'POST', '/api/invoices/INV-2026-00981/payments', 502, 5.006, 'bob'),
    exchange(5, 'GET', '/api/invoices/INV-404', 404, 0.004, 'carol'),
    exchange(6, 'GET', '/actuator/health', 200, 0.002),
    exchange(7, 'DELETE', '/api/invoices/INV-2026-00977', 204, 0.031, 'alice'),
  ],
};

export const AUDIT_EVENTS = {
  events: [
    { timestamp: T(1), principal: 'alice', type: 'AUTHENTICATION_SUCCESS', data: { details: { remoteAddress: '10.0.4.17', sessionId: null } } },
    { timestamp: T(2), principal: 'mallory', type: 'AUTHENTICATION_FAILURE', data: { type: 'org.springframework.security.authentication.BadCredentialsException', message: 'Bad credentials', details: { remoteAddress: '203.0.113.9', sessionId: null } } },
    { timestamp: T(3), principal: 'bob', type: 'AUTHENTICATION_SUCCESS', data: { details: { remoteAddress: '10.0.4.21', sessionId: null } } },
    { timestamp: T(4), principal: 'bob', type: 'AUTHORIZATION_FAILURE', data: { type: 'org.springframework.security.access.AccessDeniedException', message: 'Access Denied' } },
  ],
};

const migration = (rank: number, version: string, description: string, state = 'SUCCESS') => ({
  type: 'SQL', checksum: 1_000_000 + rank * 7919, version, description, script: `V${version}__${description.replace(/ /g, '_')}.sql`, state,
  installedBy: state === 'PENDING' ? null : 'billing', installedOn: state === 'PENDING' ? null : T(-60 * 24 * (10 - rank)), installedRank: state === 'PENDING' ? null : rank, executionTime: state === 'PENDING' ? null : 20 + rank * 13,
});

export const FLYWAY = {
  contexts: {
    billing: {
      flywayBeans: {
        flyway: {
          migrations: [migration(1, '1', 'create invoice'), migration(2, '2', 'create payment'), migration(3, '2.1', 'add invoice due date'), migration(4, '3', 'index invoice customer'), migration(5, '4', 'add payment provider ref', 'PENDING')],
        },
      },
    },
  },
};

const changeSet = (order: number, id: string, description: string, execType = 'EXECUTED') => ({
  author: order % 2 === 0 ? 'bob' : 'alice', changeLog: 'db/changelog/db.changelog-master.yaml', comments: '', contexts: [], dateExecuted: T(-60 * 24 * (6 - order)),
  deploymentId: '7600000001', description, execType, id, labels: [], checksum: `9:${(order * 0x1f2e3d).toString(16)}`, orderExecuted: order, tag: order === 3 ? 'v1.2.0' : null,
});

export const LIQUIBASE = {
  contexts: {
    billing: {
      liquibaseBeans: {
        liquibase: { changeSets: [changeSet(1, '1', 'createTable tableName=invoice'), changeSet(2, '2', 'createTable tableName=payment'), changeSet(3, '3', 'addColumn tableName=invoice'), changeSet(4, '4', 'createIndex indexName=idx_invoice_customer', 'RERAN')] },
      },
    },
  },
};

/** The steps Boot records (`BufferingApplicationStartup`), nested through `parentId`, ending with the application ready. */
export function startupBody(): unknown {
  const steps: { id: number; parentId: number | null; name: string; start: number; end: number; tags: Record<string, string> }[] = [
    { id: 0, parentId: null, name: 'spring.boot.application.starting', start: 0, end: 12, tags: { mainApplicationClass: 'com.example.billing.BillingApplication' } },
    { id: 1, parentId: null, name: 'spring.boot.application.environment-prepared', start: 12, end: 140, tags: {} },
    { id: 2, parentId: null, name: 'spring.boot.application.context-prepared', start: 140, end: 160, tags: {} },
    { id: 3, parentId: null, name: 'spring.context.refresh', start: 160, end: 2410, tags: {} },
    { id: 4, parentId: 3, name: 'spring.context.beans.post-process', start: 180, end: 640, tags: {} },
    { id: 5, parentId: 4, name: 'spring.context.config-classes.parse', start: 190, end: 560, tags: { classCount: '312' } },
    { id: 6, parentId: 3, name: 'spring.beans.instantiate', start: 700, end: 1720, tags: { beanName: 'dataSource' } },
    { id: 7, parentId: 3, name: 'spring.beans.instantiate', start: 1720, end: 2180, tags: { beanName: 'flyway' } },
    { id: 8, parentId: 3, name: 'spring.beans.instantiate', start: 2180, end: 2330, tags: { beanName: 'invoiceService' } },
    { id: 9, parentId: null, name: 'spring.boot.application.started', start: 2410, end: 2420, tags: {} },
    { id: 10, parentId: null, name: 'spring.boot.application.ready', start: 2420, end: 2431, tags: {} },
  ];
  const base = Date.UTC(2026, 0, 5, 8, 59, 57);
  const iso = (ms: number) => new Date(base + ms).toISOString();
  return {
    springBootVersion: '3.3.1',
    timeline: {
      startTime: iso(0),
      events: steps.map((step) => ({
        endTime: iso(step.end), duration: `PT${(step.end - step.start) / 1000}S`, startTime: iso(step.start),
        startupStep: { name: step.name, id: step.id, tags: Object.entries(step.tags).map(([key, value]) => ({ key, value })), parentId: step.parentId },
      })),
    },
  };
}

export const QUARTZ_JOBS = { groups: { reports: { jobs: ['dailyReport'] }, DEFAULT: { jobs: ['cleanupDrafts'] } } };
export const QUARTZ_JOB_DETAILS: Record<string, unknown> = {
  'reports/dailyReport': { group: 'reports', name: 'dailyReport', description: 'Writes the daily revenue report', className: 'com.example.billing.jobs.DailyReportJob', durable: false, requestRecovery: false, data: { target: '/srv/reports', password: '******' }, triggers: [{ group: 'reports', name: 'everyMorning', previousFireTime: T(-180), nextFireTime: T(21 * 60), priority: 5 }] },
  'DEFAULT/cleanupDrafts': { group: 'DEFAULT', name: 'cleanupDrafts', description: null, className: 'com.example.billing.jobs.CleanupJob', durable: true, requestRecovery: false, data: {}, triggers: [{ group: 'DEFAULT', name: 'every15Minutes', previousFireTime: T(-5), nextFireTime: T(10), priority: 5 }] },
};
export const QUARTZ_TRIGGERS = {
  groups: {
    reports: { paused: false, triggers: { cron: { everyMorning: { previousFireTime: T(-180), nextFireTime: T(21 * 60), priority: 5, expression: '0 0 6 * * ?', timeZone: 'Europe/Berlin' } }, simple: {}, dailyTimeInterval: {}, calendarInterval: {}, custom: {} } },
    DEFAULT: { paused: false, triggers: { cron: {}, simple: { every15Minutes: { previousFireTime: T(-5), nextFireTime: T(10), priority: 5, interval: 900_000, timesTriggered: 212 } }, dailyTimeInterval: {}, calendarInterval: {}, custom: {} } },
  },
};

const component = (group: string, name: string, version: string, license: string) => ({
  type: 'library', 'bom-ref': `pkg:maven/${group}/${name}@${version}?type=jar`, group, name, version, purl: `pkg:maven/${group}/${name}@${version}?type=jar`,
  licenses: [{ license: { id: license } }],
});

export const SBOM = {
  bomFormat: 'CycloneDX', specVersion: '1.5', serialNumber: 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79', version: 1,
  metadata: { timestamp: '2026-01-02T10:00:00Z', component: { type: 'application', group: 'com.example', name: 'billing', version: '3.1.4' } },
  components: [
    component('org.springframework.boot', 'spring-boot', '3.3.1', 'Apache-2.0'),
    component('org.springframework', 'spring-webmvc', '6.1.10', 'Apache-2.0'),
    component('org.apache.tomcat.embed', 'tomcat-embed-core', '10.1.25', 'Apache-2.0'),
    component('com.zaxxer', 'HikariCP', '5.1.0', 'Apache-2.0'),
    component('org.postgresql', 'postgresql', '42.7.3', 'BSD-2-Clause'),
    component('org.flywaydb', 'flyway-core', '10.10.0', 'Apache-2.0'),
    component('com.github.ben-manes.caffeine', 'caffeine', '3.1.8', 'Apache-2.0'),
    component('ch.qos.logback', 'logback-classic', '1.5.6', 'EPL-1.0'),
    component('com.fasterxml.jackson.core', 'jackson-databind', '2.17.1', 'Apache-2.0'),
    component('org.jolokia', 'jolokia-support-springboot', '2.1.0', 'Apache-2.0'),
  ],
};

export const GATEWAY_ROUTES = [
  { predicate: 'Paths: [/billing/**], match trailing slash: true', route_id: 'billing', filters: ['[[StripPrefix parts = 1], order = 1]', '[[Retry retries = 3], order = 2]'], uri: 'lb://billing', order: 0 },
  { predicate: 'Paths: [/shop/**], match trailing slash: true', route_id: 'shop', filters: ['[[StripPrefix parts = 1], order = 1]'], uri: 'lb://shop', order: 0 },
];
export const GATEWAY_GLOBAL_FILTERS = {
  'org.springframework.cloud.gateway.filter.ReactiveLoadBalancerClientFilter@77856cc5': 10150,
  'org.springframework.cloud.gateway.filter.NettyRoutingFilter@4f6fd101': 2147483647,
  'org.springframework.cloud.gateway.filter.AdaptCachedBodyGlobalFilter@7d7ceca8': -2147482648,
  'org.springframework.cloud.gateway.filter.ForwardPathFilter@33a2499c': 0,
};

/** A thread dump in the JVM's text format, as Boot writes it for `Accept: text/plain`. */
export const THREAD_DUMP_TEXT = `2026-01-05 10:00:00
Full thread dump OpenJDK 64-Bit Server VM (21.0.3+9-LTS mixed mode, sharing):

"main" - Thread t@1
   java.lang.Thread.State: RUNNABLE
	at com.example.billing.BillingApplication.main(BillingApplication.java:12)

"http-nio-8080-exec-1" - Thread t@41
   java.lang.Thread.State: WAITING
	at java.base/jdk.internal.misc.Unsafe.park(Native Method)
`;
