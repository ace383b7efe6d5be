import { MASK } from '../core/store/mask.js';
import { maskUrlPassword } from '../core/store/url-credentials.js';

/** The last word of a key that names a secret: `password`, `default-password`, `api-key`, `auth-token`, `token-hash`. */
const SECRET_WORDS = new Set(['password', 'passwd', 'passphrase', 'secret', 'token', 'key', 'credential', 'credentials', 'hash']);

/** Whether a config key holds a secret: by its last word, or a webhook URL (its path is the credential). */
export function isSecretKey(key: string): boolean {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase().split(/[-_.\s]+/).filter(Boolean);
  const last = words.at(-1);
  return last !== undefined && (SECRET_WORDS.has(last) || (last === 'url' && words.includes('webhook')));
}

/**
 * A config as it may be shown (an About page): every value under a secret key is `******`, every
 * header value (`headers:` maps carry `Authorization`) too, URLs lose their userinfo password,
 * and URLs of notifier sections keep only their origin (a webhook's path or query is its
 * credential). Values that are not JSON (functions, class instances) become their text or go.
 */
export function maskSecrets(value: unknown): unknown {
  return mask(value, [], false);
}

function mask(value: unknown, path: readonly string[], underNotifier: boolean): unknown {
  const key = path.at(-1);
  if (value === null || value === undefined) return value ?? null;
  if (key !== undefined && (isSecretKey(key) || path.at(-2) === 'headers')) return MASK;
  if (Array.isArray(value)) return value.map((item) => mask(item, path, underNotifier));
  if (typeof value === 'string') return maskString(value, key, underNotifier);
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'object') {
    if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value instanceof Date ? value.toISOString() : String(value);
    const shown: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) {
      if (typeof item === 'function') continue;
      shown[name] = mask(item, [...path, name], underNotifier || (path.length === 0 && name.startsWith('notify')));
    }
    return shown;
  }
  return undefined;
}

function maskString(value: string, key: string | undefined, underNotifier: boolean): string {
  const masked = maskUrlPassword(value);
  if (!underNotifier || key === undefined || !/url$/i.test(key) || !URL.canParse(masked)) return masked;
  const url = new URL(masked);
  return url.pathname === '/' && url.search === '' ? masked : `${url.origin}/${MASK}`;
}
