import { ALL_PERMISSIONS, type SessionUser } from './context.js'

/**
 * The access policy of one caller: who they are and which permission nodes they act
 * with. The host builds it once per request from the session or the API token (a token
 * acts with what it was given that its user still holds), and every path that hands out
 * data asks it — answers, streams and their replays, notifications, search, exports.
 * A stream, which lives longer than its request, asks `renewed()` for the same
 * credential's rights of now: never the account's, which would drop a token's limits.
 */
export class Viewer {
  /** Someone not signed in: reads what everyone may read, holds no permission. */
  static readonly visitor: Viewer = new Viewer(null, async (): Promise<Viewer> => Viewer.visitor)

  private constructor (readonly user: SessionUser | null, private readonly renew: () => Promise<Viewer>) {}

  /**
   * The policy of a caller signed in as `user` (a session, or a token: `user.permissions`
   * are then the token's); `renew` reads the same credential again (a visitor when it no
   * longer resolves: signed out, revoked, expired, disabled).
   */
  static of (user: SessionUser | null, renew: () => Promise<SessionUser | null>): Viewer {
    return user === null ? Viewer.visitor : new Viewer(user, async () => Viewer.of(await renew(), renew))
  }

  /**
   * The policy of an account as a session of theirs would act (the one a mention is read
   * with, say); it renews by reading the account again with `find`.
   */
  static ofAccount (user: SessionUser, find: (id: number) => Promise<SessionUser | undefined>): Viewer {
    return Viewer.of(user, async () => await find(user.id) ?? null)
  }

  get signedIn (): boolean {
    return this.user !== null
  }

  /** Whether the caller is signed in (by a session or a token). */
  isMember (): this is MemberViewer {
    return this.user !== null
  }

  /** The account's id; undefined for a visitor. */
  get userId (): number | undefined {
    return this.user?.id
  }

  /** Whether the caller acts with the permission node `node` (the admin role's `*` holds every one). */
  holds (node: string): boolean {
    const permissions = this.user?.permissions
    return permissions !== undefined && (permissions.includes(ALL_PERMISSIONS) || permissions.includes(node))
  }

  /** The same credential's policy as it is now (roles, tokens and accounts may have changed since the request). */
  renewed (): Promise<Viewer> {
    return this.renew()
  }
}

/** The policy of a signed-in caller (every LoggedInApi and PanelApi call's). */
export type MemberViewer = Viewer & { readonly user: SessionUser }
