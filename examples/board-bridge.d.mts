export interface BoardAccess {
  /** Where the board runs, e.g. `https://a.example.org`. */
  url: string
  /** An administrator (or a member with panel.manage.webhooks) of it. */
  username: string
  password: string
  /** The room bridged (its slug); `general` by default. */
  room?: string
  /** What its shouts show on the other board as `via`; `board <host>` by default. */
  name?: string
}

export interface OneWay {
  incomingHookId: number
  webhookId: number
}

/** Bridges `a`'s room with `b`'s both ways: each board's slack-format webhook feeds the other's incoming hook. */
export function bridgeBoards (options: { a: BoardAccess, b: BoardAccess }): Promise<{ aToB: OneWay, bToA: OneWay, unbridge: () => Promise<void> }>

/** Signs in to a board; `call` answers the parsed body or throws naming the error code and the HTTP status. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function signIn (board: { url: string, username: string, password: string }): Promise<{ url: string, call: (method: string, path: string, body?: unknown) => Promise<any> }>
