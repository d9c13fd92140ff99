declare module 'warden:types/errors@0.1.0' {
  /**
   * Why a capability call failed. Every message says what to do next.
   */
  export type Error = ErrorAccessDenied | ErrorLimitReached | ErrorNotFound | ErrorStaleElement | ErrorGone | ErrorTimeout | ErrorInvalidArgument | ErrorIo;
  /**
   * The manifest's grants refuse the call; the message names the grant to add.
   */
  export interface ErrorAccessDenied {
    tag: 'access-denied',
    val: string,
  }
  /**
   * A per-plugin limit is reached (sessions, tabs, handles); the message names the
   * manifest key that sets it.
   */
  export interface ErrorLimitReached {
    tag: 'limit-reached',
    val: string,
  }
  /**
   * What the call names does not exist: a session, a file, a host alias, a tab.
   */
  export interface ErrorNotFound {
    tag: 'not-found',
    val: string,
  }
  /**
   * An element handle from an earlier snapshot points at a node that is gone from the
   * page; take a new snapshot.
   */
  export interface ErrorStaleElement {
    tag: 'stale-element',
    val: string,
  }
  /**
   * The browser or session behind a handle has exited; open a new one.
   */
  export interface ErrorGone {
    tag: 'gone',
    val: string,
  }
  /**
   * The host gave up waiting.
   */
  export interface ErrorTimeout {
    tag: 'timeout',
    val: string,
  }
  /**
   * An argument is malformed or out of range.
   */
  export interface ErrorInvalidArgument {
    tag: 'invalid-argument',
    val: string,
  }
  /**
   * Network, protocol or other I/O failure.
   */
  export interface ErrorIo {
    tag: 'io',
    val: string,
  }
}
