import type { Registration } from '../../domain/index.js';

/** `instance-auth`: credentials Vigil sends to instances whose metadata carries none. */
export interface InstanceAuthSettings {
  readonly enabled: boolean;
  readonly defaultUserName: string | null;
  readonly defaultPassword: string | null;
  /** Per application name. */
  readonly serviceMap: Readonly<Record<string, { readonly userName: string | null; readonly userPassword: string | null }>>;
}

const USER_KEYS = ['user.name', 'user-name', 'username'];
const PASSWORD_KEYS = ['user.password', 'user-password', 'userpassword'];

/**
 * The `Authorization` header for calls to an instance, as SBA's BasicAuthHttpHeaderProvider
 * builds it: metadata credentials first, then the per-application map, then the defaults.
 * `enabled: false` turns off only the configured sources; metadata credentials still apply.
 */
export function instanceAuthorization(registration: Registration | null, settings: InstanceAuthSettings): string | undefined {
  if (!registration) return undefined;
  const { metadata } = registration;
  let user = firstOf(metadata, USER_KEYS);
  let password = firstOf(metadata, PASSWORD_KEYS);
  if (!(present(user) && present(password)) && settings.enabled) {
    const service = settings.serviceMap[registration.name];
    if (service && present(service.userName) && present(service.userPassword)) {
      user = service.userName;
      password = service.userPassword;
    } else {
      user = settings.defaultUserName;
      password = settings.defaultPassword;
    }
  }
  if (!present(user) || !present(password)) return undefined;
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

function firstOf(metadata: Readonly<Record<string, string>>, keys: readonly string[]): string | null {
  for (const key of keys) if (metadata[key] !== undefined) return metadata[key]!;
  return null;
}

function present(value: string | null | undefined): value is string {
  return typeof value === 'string' && value.trim() !== '';
}
