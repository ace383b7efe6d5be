import type { ServerResponse } from 'node:http';
import type { VigilRequest } from '../../core/plugin-api.js';
import { SESSION_COOKIE, appendCookie, clearCookie, cookieOf } from './cookies.js';
import { sendPage } from './pages.js';
import { publicBase } from './public-url.js';
import { LOGIN_PATH, SIGNED_OUT_PATH, peerOf, redirect, wantsHtml, type OidcRuntime } from './runtime.js';
import { isSecretId } from './sealed.js';

/**
 * `POST /logout`: ends the session here first (on every node, and the cookie is cleared), then
 * sends the browser to the provider's `end_session_endpoint` with the ID token as the hint and
 * the signed-out page as the way back (RP-Initiated Logout 1.0); to the signed-out page directly
 * when the provider has none. The kernel refuses it cross-site, like every unsafe request.
 *
 * A client that asks for JSON gets `200 {"location": ...}` and goes there itself: the dashboard
 * does, since its content security policy lets no form post leave the page, and a fetch cannot
 * follow a redirect to another site for it.
 */
export async function logout(rt: OidcRuntime, req: VigilRequest, res: ServerResponse): Promise<void> {
  const id = cookieOf(req, SESSION_COOKIE);
  let idToken: string | undefined;
  let name: string | undefined;
  if (id !== undefined && isSecretId(id)) {
    const session = await rt.sessions.read(id);
    idToken = session?.record.idToken;
    name = session?.record.name;
    await rt.sessions.end(id);
    if (session) rt.bus.emit('principal.signed-out', { principal: { name: session.record.name, kind: 'user', via: 'oidc', groups: session.record.groups }, address: peerOf(req) });
  }
  appendCookie(res, clearCookie(SESSION_COOKIE, rt.cookie));
  const base = publicBase(req, rt.config['base-url'], rt.contextPath);
  const prefix = base?.prefix ?? rt.contextPath;
  const signedOut = `${prefix}${SIGNED_OUT_PATH}`;
  const atProvider = idToken !== undefined && base !== undefined
    ? await rt.provider.endSessionUrl({ id_token_hint: idToken, post_logout_redirect_uri: `${base.absolute}${SIGNED_OUT_PATH}` })
    : undefined;
  const location = atProvider?.href ?? signedOut;
  if (name !== undefined) rt.log.info(`${name} signed out${atProvider ? ', and is sent to the identity provider to sign out there' : ''}`);
  if (!wantsHtml(req) && /\bjson\b/i.test(req.headers.accept ?? '')) {
    rt.http.sendJson(res, 200, { location }, { 'cache-control': 'no-store' });
    return;
  }
  redirect(res, location);
}

/** `GET /login/signed-out`: where the provider sends the browser back after signing out. */
export function signedOut(rt: OidcRuntime, _req: VigilRequest, res: ServerResponse): void {
  sendPage(res, 200, {
    title: 'Signed out',
    message: 'You have signed out of Vigil.',
    link: { href: `${rt.config['base-url'] || rt.contextPath}${LOGIN_PATH}`, text: 'Sign in again' },
  });
}
