import { createHmac } from 'node:crypto';

const PREFIX = 'whsec_';

/** Whether `secret` is a Standard Webhooks secret: `whsec_` and base64 of 24 to 64 bytes. */
export function isWebhookSecret(secret: string): boolean {
  if (!secret.startsWith(PREFIX)) return false;
  const base64 = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return false;
  const length = Buffer.from(base64, 'base64').length;
  return length >= 24 && length <= 64;
}

/**
 * The Standard Webhooks signature header value (https://www.standardwebhooks.com):
 * `v1,` and base64 of HMAC-SHA256 over `{id}.{timestamp}.{body}`, keyed with the secret's bytes.
 */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
