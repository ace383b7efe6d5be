import { escapes } from '../../core/kits/notify-channel/index.js';

const MASK = '******';
/** Shorter than this, a value is no secret worth masking (and masking it would garble every line). */
const MIN_SECRET = 4;
/** The tail of a URL path on its own (`SLACKSECRETXYZ`, `B000/SLACKSECRETXYZ`) is masked from this length. */
const MIN_PATH_TAIL = 8;

/**
 * The forms a secret can take in a receiver's answer or a log line. A receiver rarely quotes the
 * whole URL it was called with: a 404 page says `The requested URL /services/T000/B000/XYZ was
 * not found`, a JSON error echoes a query value, an HTML page escapes `&` as `&amp;`, PHP escapes
 * `/` as `\/`. So a URL secret stands for its password, its path (whole, decoded, and each tail
 * of at least 8 characters), its query (with and without `?`) and each query value (as sent and
 * decoded); every one of those also HTML-, JSON- and percent-encoded.
 */
export function secretForms(secret: string): string[] {
  const pieces = new Set<string>([secret]);
  const add = (value: string, min = MIN_SECRET) => {
    if (value.length >= min) pieces.add(value);
  };
  const url = parseHttpUrl(secret);
  if (url) {
    add(url.href);
    if (url.password) {
      add(url.password);
      add(decoded(url.password));
    }
    if (url.pathname !== '/') {
      add(url.pathname);
      add(decoded(url.pathname));
      const segments = url.pathname.split('/');
      for (let index = 1; index < segments.length; index++) {
        const tail = segments.slice(index).join('/');
        add(tail, MIN_PATH_TAIL);
        add(`/${tail}`, MIN_PATH_TAIL);
        add(decoded(tail), MIN_PATH_TAIL);
      }
    }
    if (url.search) {
      add(url.search);
      add(url.search.slice(1));
      for (const part of url.search.slice(1).split('&')) {
        const raw = part.slice(part.indexOf('=') + 1);
        add(raw);
        add(decoded(raw.replace(/\+/g, ' ')));
      }
    }
  }
  const forms = new Set<string>();
  for (const piece of pieces) {
    for (const form of [piece, escapes.html(piece), piece.replace(/&/g, '&amp;'), piece.replace(/\//g, '\\/'), encodeURIComponent(piece)]) {
      if (form.length >= MIN_SECRET) forms.add(form);
    }
  }
  return [...forms];
}

/**
 * Masks a channel's secrets, in every form `secretForms` lists, longest first (so a URL is one
 * mask, not a host and a mask). The forms are worked out again only when the secrets change
 * (a reload); until then each call is a handful of string replacements.
 */
export class Redactor {
  #key: string | undefined;
  #forms: string[] = [];

  constructor(private readonly secrets: () => readonly string[]) {}

  readonly redact = (text: string): string => {
    const secrets = this.secrets();
    const key = secrets.join('\u0000');
    if (key !== this.#key) {
      this.#key = key;
      this.#forms = [...new Set(secrets.filter((secret) => secret.length >= MIN_SECRET).flatMap(secretForms))].sort((a, b) => b.length - a.length);
    }
    let out = text;
    for (const form of this.#forms) if (out.includes(form)) out = out.split(form).join(MASK);
    return out;
  };
}

function parseHttpUrl(text: string): URL | undefined {
  if (!/^https?:\/\//i.test(text)) return undefined;
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
