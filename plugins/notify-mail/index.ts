import { readFileSync } from 'node:fs';
import { createTransport, type Transporter } from 'nodemailer';
import * as yup from 'yup';
import { channelSchema, defineChannel, httpUrl, secret, type Attempt, type ChannelSection } from '../../core/kits/notify-channel/index.js';
import { messageOf, type ConfigSchema } from '../../core/plugin-api.js';
import { mailContent } from './mail-body.js';

/** A list of addresses, given as a list or as one comma-separated string (as Spring properties do). */
const addresses = (fallback: string[]) => yup.array(yup.string().required())
  .transform((value: unknown, original: unknown) => (typeof original === 'string' ? original.split(',').map((part) => part.trim()).filter(Boolean) : value))
  .default(fallback);

const schema = channelSchema({
  host: yup.string().default(''),
  port: yup.number().integer().min(1).max(65535).optional(),
  /** TLS from the first byte (port 465); false uses STARTTLS when the server offers it. */
  secure: yup.boolean().default(false),
  /** Refuse to send unless STARTTLS succeeds; by default whenever there is a login, so a password never crosses the network in clear. */
  'require-tls': yup.boolean().when('user', {
    is: (user: string | undefined) => Boolean(user),
    then: (schema) => schema.default(true),
    otherwise: (schema) => schema.default(false),
  }),
  /** A PEM file of CAs to trust for the server's certificate (an internal mail server's own CA). */
  'ca-file': yup.string().default(''),
  user: yup.string().default(''),
  password: secret().default(''),
  from: yup.string().default('Vigil <noreply@localhost>'),
  to: addresses(['root@localhost']),
  cc: addresses([]),
  /** The dashboard's URL for the link in each mail; default `notify.base-url`. */
  'base-url': httpUrl().default(''),
}, {
  // The subject line: SBA's mail subject.
  messages: {
    status: '{{name}} ({{id}}) is {{status}}',
    registered: '{{name}} ({{id}}) has registered',
    deregistered: '{{name}} ({{id}}) has deregistered',
  },
});

interface MailConfig extends ChannelSection {
  readonly host: string;
  readonly port?: number;
  readonly secure: boolean;
  readonly 'require-tls': boolean;
  readonly 'ca-file': string;
  readonly user: string;
  readonly password: string;
  readonly from: string;
  readonly to: string[];
  readonly cc: string[];
  readonly 'base-url': string;
}

/** SMTP answers: 5xx is final, 4xx is "try again later"; connection problems are retried. */
function outcomeOf(error: unknown): Attempt {
  const { responseCode, code } = error as { responseCode?: number; code?: string };
  const reason = `${code ? `${code}: ` : ''}${messageOf(error)}`;
  if (code === 'EAUTH' || code === 'EENVELOPE' || (responseCode !== undefined && responseCode >= 500)) return { outcome: 'failed', reason };
  return { outcome: 'retry', reason };
}

/**
 * `notify-mail`: mail over SMTP with nodemailer (TLS or STARTTLS, optional auth), an HTML and a
 * plain-text part, subject and body as SBA's mail. The message id is the notification's, so a
 * mail retried after a lost answer can be recognised as the same.
 */
export default defineChannel<MailConfig>({
  name: 'notify-mail',
  configSchema: schema as unknown as ConfigSchema<MailConfig>,
  requires: 'host',
  channel({ config, templates, ctx }) {
    // Read at setup, so a missing file stops start-up with a message instead of failing each mail.
    const ca = config['ca-file'] ? readFileSync(config['ca-file'], 'utf8') : undefined;
    if (config.user && !config.secure && !config['require-tls']) {
      ctx.log.warn('require-tls: false with a user: the SMTP password may cross the network in clear (unless the server offers STARTTLS)');
    }
    let transport: Transporter | undefined;
    return {
      target: `smtp${config.secure ? 's' : ''}://${config.host}${config.port ? `:${config.port}` : ''} → ${config.to.join(', ')}`,
      secrets: config.password ? [config.password] : [],
      async deliver(notification, tools) {
        transport ??= createTransport({
          host: config.host,
          ...(config.port ? { port: config.port } : {}),
          secure: config.secure,
          requireTLS: config['require-tls'],
          ...(config.user ? { auth: { user: config.user, pass: config.password } } : {}),
          ...(ca ? { tls: { ca } } : {}),
          connectionTimeout: tools.timeoutMs,
          greetingTimeout: tools.timeoutMs,
          socketTimeout: tools.timeoutMs,
        });
        const content = mailContent(notification, templates, (config['base-url'] || notification.baseUrl).replace(/\/+$/, ''));
        try {
          await transport.sendMail({
            from: config.from,
            to: config.to,
            ...(config.cc.length ? { cc: config.cc } : {}),
            subject: content.subject,
            text: content.text,
            html: content.html,
            messageId: `<${notification.id}@vigil>`,
          });
          return { outcome: 'delivered' };
        } catch (error) {
          return outcomeOf(error);
        }
      },
      async close() {
        transport?.close();
      },
    };
  },
});
