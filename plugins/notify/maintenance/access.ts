/** Who asks, as the auth hook left it on the request (`req.user`), or undefined without authentication. */
export type Principal = string | undefined;

/** The part of a window an access rule looks at. */
export interface WindowScope {
  readonly applications: readonly string[];
  readonly instances: readonly string[];
}

/**
 * Whether `principal` may make or delete `window`: the one place the maintenance routes ask. Today
 * the routes are guarded like every write (the auth plugin lets only roles that may write reach
 * them), so anyone who gets here may. Issue 31's application-scoped roles plug in here: an
 * operator within the applications granted to them, an admin everywhere.
 */
export function mayManageWindow(principal: Principal, window: WindowScope): boolean {
  void principal;
  void window;
  return true;
}

/** The `createdBy` of a window: the principal, or `anonymous` when no authentication is configured. */
export function creatorOf(principal: Principal): string {
  return principal && principal.trim() !== '' ? principal : 'anonymous';
}
