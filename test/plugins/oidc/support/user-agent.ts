/**
 * A browser without a browser: follows redirects by hand, keeps cookies per origin (honouring
 * `Max-Age=0` and `Path`), and fills in the test provider's development sign-in form. Each step
 * is recorded, so a test can look at every status, `Location` and `Set-Cookie` on the way.
 */
export interface Step {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly location: string | undefined;
  readonly setCookies: readonly string[];
  readonly body: string;
  readonly contentType: string;
}

interface Cookie {
  readonly value: string;
  readonly path: string;
}

export class UserAgent {
  readonly steps: Step[] = [];
  readonly #jar = new Map<string, Map<string, Cookie>>();

  /** The cookie called `name` this agent holds for `origin`, as it would send it (undefined when none). */
  cookie(origin: string, name: string): string | undefined {
    return this.#jar.get(new URL(origin).origin)?.get(name)?.value;
  }

  setCookie(origin: string, name: string, value: string, path = '/'): void {
    const jar = this.#jar.get(new URL(origin).origin) ?? new Map<string, Cookie>();
    jar.set(name, { value, path });
    this.#jar.set(new URL(origin).origin, jar);
  }

  forget(origin: string, name: string): void {
    this.#jar.get(new URL(origin).origin)?.delete(name);
  }

  /** One request, cookies sent and stored; no redirect followed. */
  async send(method: string, url: string, options: { headers?: Record<string, string>; form?: Record<string, string> } = {}): Promise<Step> {
    const target = new URL(url);
    const cookies = [...(this.#jar.get(target.origin) ?? new Map<string, Cookie>()).entries()]
      .filter(([, cookie]) => target.pathname === cookie.path || target.pathname.startsWith(cookie.path.endsWith('/') ? cookie.path : `${cookie.path}/`))
      .map(([name, cookie]) => `${name}=${cookie.value}`);
    const headers: Record<string, string> = { accept: 'text/html,application/xhtml+xml', ...options.headers };
    if (cookies.length > 0) headers.cookie = cookies.join('; ');
    let body: string | undefined;
    if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
      // A browser submitting a form of this page: same origin.
      headers.origin ??= target.origin;
    }
    const res = await fetch(url, { method, headers, redirect: 'manual', ...(body === undefined ? {} : { body }) });
    const setCookies = res.headers.getSetCookie();
    for (const line of setCookies) this.#store(target, line);
    const location = res.headers.get('location') ?? undefined;
    const step: Step = {
      method, url, status: res.status, setCookies, body: await res.text(), contentType: res.headers.get('content-type') ?? '',
      location: location === undefined ? undefined : new URL(location, url).href,
    };
    this.steps.push(step);
    return step;
  }

  /**
   * Opens `url` and follows redirects, signing in as `login` on the provider's form when it shows
   * up, until a response is not a redirect (or `stopAt` says to stop before a URL). Returns the last step.
   */
  async open(url: string, options: { login?: string; stopAt?: (url: string) => boolean; headers?: Record<string, string> } = {}): Promise<Step> {
    let step = await this.send('GET', url, { headers: options.headers ?? {} });
    for (let hops = 0; hops < 20; hops += 1) {
      if (step.location !== undefined && step.status >= 300 && step.status < 400) {
        if (options.stopAt?.(step.location)) return step;
        step = await this.send('GET', step.location);
        continue;
      }
      const form = providerForm(step.body);
      if (form?.prompt === 'login' && options.login !== undefined) {
        step = await this.send('POST', new URL(form.action, step.url).href, { form: { prompt: 'login', login: options.login, password: 'any' } });
        continue;
      }
      if (form?.prompt === 'consent') {
        // The provider asks a native app's user to confirm, every time (its `native_client_prompt`).
        step = await this.send('POST', new URL(form.action, step.url).href, { form: { prompt: 'consent' } });
        continue;
      }
      return step;
    }
    throw new Error(`too many redirects from ${url}`);
  }

  #store(target: URL, line: string): void {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const attribute = (key: string) => attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
    const jar = this.#jar.get(target.origin) ?? new Map<string, Cookie>();
    this.#jar.set(target.origin, jar);
    if (attribute('max-age') === '0' || (attribute('expires') !== undefined && Date.parse(attribute('expires')!) < Date.now())) {
      jar.delete(name);
      return;
    }
    jar.set(name, { value, path: attribute('path') ?? '/' });
  }
}

/** The development sign-in (or consent) form on a provider page, or undefined. */
function providerForm(html: string): { prompt: 'login' | 'consent'; action: string } | undefined {
  const prompt = /name="prompt" value="(login|consent)"/.exec(html)?.[1] as 'login' | 'consent' | undefined;
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
  return prompt && action ? { prompt, action } : undefined;
}
