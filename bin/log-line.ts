import { maskUrlPassword } from '../core/store/url-credentials.js';

/**
 * Where a URL with userinfo may sit in free text: a scheme, then anything up to a space or a
 * quote that contains an `@`. Each candidate is then masked by `maskUrlPassword`, which follows
 * the WHATWG parser's rules and leaves anything without a password alone (`ops@example.com`).
 */
const URL_WITH_AT = /[A-Za-z][A-Za-z0-9+.-]*:[^\s"'<>`]*@[^\s"'<>`]*/g;

/**
 * The text with the password of every URL in it masked: a log line carries URLs from config,
 * discovery sources and instances, in messages (`... at http://user:pw@host: not a URI`) and in
 * values, and a password must never reach the log. A nested form (`jdbc:postgresql://u:pw@db`)
 * is masked in its inner URL.
 */
export function maskUrlPasswordsIn(text: string): string {
  if (!text.includes('@')) return text;
  return text.replace(URL_WITH_AT, maskCandidate);
}

function maskCandidate(candidate: string): string {
  const masked = maskUrlPassword(candidate);
  if (masked !== candidate) return masked;
  // `jdbc:postgresql://...`: the URL starts after the outer scheme.
  const colon = candidate.indexOf(':');
  const inner = candidate.slice(colon + 1);
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(inner) ? `${candidate.slice(0, colon + 1)}${maskCandidate(inner)}` : candidate;
}

/** C0 and C1 controls, DEL, and the Unicode line and paragraph separators. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const CONTROLS = new RegExp(CONTROL.source, 'g');
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * The text with every control character written as an escape (`\n`, `\r`, `\t`, `\u001b`): one
 * record stays one line, so nothing an instance reports (a status, a message) can forge a log
 * line or drive the terminal that shows it.
 */
export function escapeControlCharacters(text: string): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROLS, (char) => NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
