import type { Logger } from '../../core/plugin-api.js';
import { claimAt, listClaim, parseClaimPath, stringClaim } from './claim-path.js';
import type { OidcConfig } from './config.js';
import type { IdentityProvider, Tokens } from './provider.js';

/** Who signed in, as Vigil keeps it. */
export interface Identity {
  readonly sub: string;
  readonly name: string;
  readonly groups: readonly string[];
}

/** Bounds on what a provider can make Vigil keep per session. */
const MAX_NAME = 256;
const MAX_GROUPS = 1000;
const MAX_GROUP = 512;

/** Reads the configured claims: `username-claim` (falling back to `sub`) and `groups-claim`. */
export class ClaimReader {
  readonly #username: readonly string[];
  readonly #groups: readonly string[];

  constructor(config: OidcConfig, private readonly log: Logger) {
    this.#username = parseClaimPath(config['username-claim'])!;
    this.#groups = parseClaimPath(config['groups-claim'])!;
  }

  /**
   * The identity in a sign-in's (or renewal's) tokens: claims from the ID token, and from the
   * userinfo endpoint for those it lacks (with `response_type=code`, claims asked for by scope
   * may come only from there, OpenID Connect Core §5.4). A renewal (`previous` given) need not
   * carry an ID token: then userinfo says who it is now, and what it does not say is kept.
   */
  async fromTokens(tokens: Tokens, provider: IdentityProvider, previous?: Identity): Promise<Identity> {
    const claims = tokens.claims();
    if (!claims) {
      if (!previous) throw new Error('the provider sent no ID token');
      const info = await provider.userinfo(tokens.access_token, previous.sub);
      return identity(previous.sub, stringClaim(info, this.#username) ?? previous.name, listClaim(info, this.#groups) ?? previous.groups);
    }
    let name = stringClaim(claims, this.#username);
    let groups = listClaim(claims, this.#groups);
    if (name === undefined || groups === undefined) {
      const info = await provider.userinfo(tokens.access_token, claims.sub);
      name ??= stringClaim(info, this.#username);
      groups ??= listClaim(info, this.#groups);
    }
    if (groups === undefined && claimAt(claims, ['_claim_names', this.#groups[0]!]) !== undefined) {
      // Entra ID leaves the groups out past 200 and points at Microsoft Graph instead: no groups
      // is the safe reading (fewer rights, never more); app roles are the fix.
      this.log.warn(`the provider left "${this.#groups.join('.')}" out of ${claims.sub}'s token (too many groups: Entra ID's overage); `
        + 'signed in without groups; assign app roles and point groups-claim at "roles"');
    }
    return identity(claims.sub, name, groups);
  }

  /** The identity an access token names. */
  fromAccessToken(payload: Record<string, unknown> & { sub?: string }): Identity {
    return identity(payload.sub ?? '', stringClaim(payload, this.#username), listClaim(payload, this.#groups));
  }
}

function identity(sub: string, name: string | undefined, groups: readonly string[] | undefined): Identity {
  return {
    sub,
    name: clean(name ?? sub).slice(0, MAX_NAME),
    groups: (groups ?? []).slice(0, MAX_GROUPS).map((group) => clean(group).slice(0, MAX_GROUP)).filter((group) => group !== ''),
  };
}

/** Control characters would forge log lines; nothing an IdP sends legitimately has them. */
function clean(text: string): string {
  return text.replace(/\p{Cc}/gu, '');
}
