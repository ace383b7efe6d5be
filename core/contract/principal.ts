import type { Role } from './access.js';

/**
 * Who is calling: what an authentication plugin's `auth` (or `pre`) hook puts on `req.principal`
 * once it has verified the caller. Authentication plugins only say who is calling; what the
 * principal may do is decided elsewhere. A request without one has not been authenticated.
 */
export interface Principal {
  /** The user name (`alice`), or the token's name for a token; what logs and audit entries show. */
  readonly name: string;
  /** A person, a script's token, or nobody in particular (a public path such as the sign-in page). */
  readonly kind: 'user' | 'token' | 'anonymous';
  /** How the caller proved it: HTTP Basic, a bearer token, or single sign-on (a session or an IdP's access token). */
  readonly via: 'basic' | 'token' | 'oidc';
  /** The groups (or roles) the identity provider names for the caller; empty when it names none. */
  readonly groups: readonly string[];
  /**
   * A role the authenticating plugin's own config gives this caller over every application
   * (`basic-auth.users[].role`): shorthand for a grant. Absent: only what `access.grants` give
   * it when an `access` section exists, and `admin` when none does.
   */
  readonly role?: Role;
}
