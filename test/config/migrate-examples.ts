/**
 * Spring Boot Admin's own documented configuration examples, quoted verbatim from the
 * codecentric/spring-boot-admin repository (path and commit with each), for the migrate-config
 * tests. Where the docs give a table of properties instead of a file, the file is made from the
 * documented property names and default values, and says so.
 */

/** spring-boot-admin-samples/spring-boot-admin-sample-consul/src/main/resources/application.yml @ 398c30486f58 */
export const CONSUL_SAMPLE = `spring:
  application:
    name: consul-example
  cloud:
    config:
      enabled: false
    consul:
      host: localhost
      port: 8500
      discovery:
        tags: management.context-path=/foo, health.path=/ping, user.name=user, user.password=password
  profiles:
    active:
      - secure
  boot:
    admin:
      discovery:
        ignored-services: consul


management:
  endpoints:
    web:
      exposure:
        include: "*"
      path-mapping:
        health: /ping
      base-path: /foo
  endpoint:
    health:
      show-details: ALWAYS

---
spring:
  config:
    activate:
      on-profile: insecure
---
spring:
  security:
    user:
      name: "user"
      password: "password"
  config:
    activate:
      on-profile: secure
`;

/** spring-boot-admin-samples/spring-boot-admin-sample-eureka/src/main/resources/application.yml @ 0e50294ceada */
export const EUREKA_SAMPLE = `spring:
  application:
    name: eureka-example
  cloud:
    config:
      enabled: false

# tag::configuration-eureka[]
eureka:  #<1>
  instance:
    leaseRenewalIntervalInSeconds: 10
  client:
    registryFetchIntervalSeconds: 5
    serviceUrl:
      defaultZone: \${EUREKA_SERVICE_URL:http://localhost:8761}/eureka/

management.security.enabled: false  #<2>
# end::configuration-eureka[]

# tag::configuration-ui-hystrix[]
spring.boot.admin.routes.endpoints: env,metrics,dump,jolokia,info,configprops,trace,logfile,refresh,flyway,liquibase,heapdump,loggers,auditevents,hystrix.stream
# end::configuration-ui-hystrix[]

# tag::configuration-ui-turbine[]
spring.boot.admin.turbine:
  clusters: default
  location: turbine  #<1>
# end::configuration-ui-turbine[]
`;

/** spring-boot-admin-samples/spring-boot-admin-sample-hazelcast/src/main/resources/application.yml @ 381483cbb0b6 (Boot 2.3's `spring.profiles` documents) */
export const HAZELCAST_SAMPLE = `---
logging:
  file: "target/boot-admin-sample-hazelcast.log"

management:
  endpoints:
    web:
      exposure:
        include: "*"
  endpoint:
    health:
      show-details: ALWAYS

spring:
  application:
    name: spring-boot-admin-sample-hazelcast
  boot:
    admin:
      client:
        url: http://localhost:8080
  profiles:
    active:
      - secure

---
spring:
  profiles: insecure

---
spring:
  profiles: secure
  security:
    user:
      name: "user"
      password: "password"
  boot:
    admin:
      client:
        username: "user"       #These two are needed so that the client
        password: "password"   #can register at the protected server api
        instance:
          metadata:
            user.name: "user"         #These two are needed so that the server
            user.password: "password" #can access the protected client endpoints
`;

/** spring-boot-admin-samples/spring-boot-admin-sample-servlet/src/main/resources/application.yml @ 000376888084 (its 2nd and 3rd documents) */
export const SERVLET_SAMPLE_UI = `---
# tag::customization-external-views[]
spring:
  boot:
    admin:
      ui:
        external-views:
          - label: "Spring Boot Admin"
            order: 1900
            children:
              - label: "📖 Docs"
                url: https://codecentric.github.io/spring-boot-admin/current/
                order: 1000
          - label: "🚀"
            url: https://codecentric.de
            order: 2000
# end::customization-external-views[]
---
# tag::customization-view-settings[]
spring:
  boot:
    admin:
      ui:
        view-settings:
          - name: "journal"
            enabled: false
# end::customization-view-settings[]
`;

/** spring-boot-admin-docs/src/site/docs/05-security/40-ssrf-protection.md @ 1f991ea013e4: "Multiple ranges" and "Allowing Additional Schemes" */
export const SSRF_DOC = `spring:
  boot:
    admin:
      ssrf-protection:
        enabled: true
        allowed-cidrs:
          - "192.168.1.0/24"     # single subnet
          - "10.0.0.0/8"         # entire RFC 1918 Class A
          - "172.16.0.0/12"      # entire RFC 1918 Class B
          - "fd00::/8"           # IPv6 unique-local range
---
spring:
  boot:
    admin:
      ssrf-protection:
        enabled: true
        allowed-schemes:
          - http
          - https
          - grpc
`;

/** spring-boot-admin-docs/src/site/docs/02-server/notifications/notifier-mail.mdx @ 3b1fe2aad568 */
export const MAIL_DOC = `spring.mail.host=smtp.example.com
spring.boot.admin.notify.mail.to=admin@example.com
`;

/**
 * spring-boot-admin-docs/src/main/asciidoc/server.adoc @ 05215e0c6e9c, "Configuration Options":
 * every property of the table with its documented default (the `*` maps with one example key,
 * public-url with an example URL).
 */
export const SERVER_DOC_TABLE = `spring.boot.admin.context-path=/admin
spring.boot.admin.monitor.status-interval=10000ms
spring.boot.admin.monitor.status-lifetime=10000ms
spring.boot.admin.monitor.info-interval=1m
spring.boot.admin.monitor.info-lifetime=1m
spring.boot.admin.monitor.default-timeout=10000
spring.boot.admin.monitor.timeout.health=2000
spring.boot.admin.monitor.default-retries=0
spring.boot.admin.monitor.retries.actuator-index=1
spring.boot.admin.metadata-keys-to-sanitize=.*password$,.*secret$,.*key$,.*token$,.*credentials.*,.*vcap_services$
spring.boot.admin.probed-endpoints=health,env,metrics,httptrace:trace,threaddump:dump,jolokia,info,logfile,refresh,flyway,liquibase,heapdump,loggers,auditevents
spring.boot.admin.instance-proxy.ignored-headers=Cookie,Set-Cookie,Authorization
spring.boot.admin.ui.public-url=https://admin.example.com/
spring.boot.admin.ui.brand=<img src="assets/img/icon-spring-boot-admin.svg"><span>Spring Boot Admin</span>
spring.boot.admin.ui.title=Spring Boot Admin
spring.boot.admin.ui.login-icon=assets/img/icon-spring-boot-admin.svg
spring.boot.admin.ui.favicon=assets/img/favicon.png
spring.boot.admin.ui.favicon-danger=assets/img/favicon-danger.png
spring.boot.admin.ui.remember-me-enabled=true
`;

/**
 * spring-boot-admin-docs/src/main/asciidoc/server-notifications.adoc @ 19f2b4a43051: the
 * notifiers' documented properties (names as the tables spell them, `webhookUrl` and
 * `parse_mode` included), with example values where the table gives none.
 */
export const NOTIFIERS_DOC_TABLE = `spring.boot.admin.notify.slack.webhook-url=https://hooks.slack.com/services/T000/B000/XXXX
spring.boot.admin.notify.slack.channel=ops
spring.boot.admin.notify.slack.ignore-changes=UNKNOWN:UP
spring.boot.admin.notify.ms-teams.webhook-url=https://example.webhook.office.com/webhookb2/abc
spring.boot.admin.notify.discord.webhook-url=https://discord.com/api/webhooks/1/abc
spring.boot.admin.notify.discord.tts=false
spring.boot.admin.notify.telegram.auth-token=123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11
spring.boot.admin.notify.telegram.chat-id=@ops
spring.boot.admin.notify.telegram.parse_mode=HTML
spring.boot.admin.notify.opsgenie.api-key=\${OPSGENIE_KEY}
spring.boot.admin.notify.opsgenie.url=https://api.opsgenie.com/v2/alerts
spring.boot.admin.notify.opsgenie.tags=prod
spring.boot.admin.notify.pagerduty.service-key=0123456789abcdef0123456789abcdef
spring.boot.admin.notify.pagerduty.url=https://events.pagerduty.com/generic/2010-04-15/create_event.json
spring.boot.admin.notify.hipchat.url=https://hipchat.example.com/v2/
spring.boot.admin.notify.letschat.enabled=false
spring.boot.admin.notify.dingtalk.webhookUrl=https://oapi.dingtalk.com/robot/send?access_token=x
spring.boot.admin.notify.proxy.host=proxy.example.com
`;

/** spring-boot-admin-docs/src/site/docs/04-integration/10-eureka.md @ 81e2a397490e: the Admin Server snippets ("Prefer IP Address", "Ignore Specific Services", "Basic Authentication") */
export const EUREKA_DOC_ADMIN = `spring:
  boot:
    admin:
      discovery:
        instancePreferIp: true
---
spring:
  boot:
    admin:
      discovery:
        ignored-services: eureka,config-server,gateway
---
eureka:
  client:
    serviceUrl:
      defaultZone: http://user:password@localhost:8761/eureka/
`;
