import { useEffect, useState } from 'preact/hooks';
import { getJson, messageOf, send, signInThrough } from '../api';

/** What `GET ui/session` answers (plugins/ui/session-route.ts). */
interface SessionInfo {
  readonly name: string | null;
  readonly via: string | null;
  readonly signIn: string | null;
  readonly signOut: string | null;
}

/**
 * "Signed in as …" in the header, and a sign-out button when the daemon signs people in through
 * a provider (`oidc`). Signing out is a POST that ends the session and answers where to go next
 * (the provider's sign-out page): a fetch, since the page's content security policy lets no form
 * leave it, followed by a navigation there.
 */
export function SignedIn() {
  const [session, setSession] = useState<SessionInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    getJson<SessionInfo>('/ui/session').then((info) => {
      signInThrough(info.signIn ?? undefined);
      setSession(info);
    }, () => undefined);
  }, []);
  if (!session?.name) return null;
  const signOut = async () => {
    try {
      const res = await send('POST', session.signOut!);
      const { location: next } = (await res.json()) as { location: string };
      location.assign(next);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  return (
    <span class="signed-in" data-signed-in={session.name}>
      <span class="muted">Signed in as</span> <strong>{session.name}</strong>
      {session.signOut && <button type="button" class="link" onClick={() => void signOut()}>Sign out</button>}
      {error && <span class="error" role="alert"> {error}</span>}
    </span>
  );
}
