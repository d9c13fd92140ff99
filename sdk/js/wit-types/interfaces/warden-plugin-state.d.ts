declare module 'warden:plugin/state@0.1.0' {
  /**
   * The value under `key`, if one is held.
   */
  export function get(key: string): Uint8Array | undefined;
  /**
   * Hold `value` under `key`, replacing what was there.
   */
  export function set(key: string, value: Uint8Array): void;
  /**
   * Forget `key` (nothing happens if it is not held).
   */
  export { _delete as delete };
  function _delete(key: string): void;
  /**
   * Every held key that starts with `prefix` (all of them for ""), sorted.
   */
  export function keys(prefix: string): Array<string>;
  /**
   * Why a write was refused.
   */
  export type StateError = StateErrorLimitReached | StateErrorInvalidKey;
  /**
   * The conversation's values would exceed `limits.state` (the message says how
   * much is held): delete what is no longer needed.
   */
  export interface StateErrorLimitReached {
    tag: 'limit-reached',
    val: string,
  }
  /**
   * The key is empty or longer than 256 bytes.
   */
  export interface StateErrorInvalidKey {
    tag: 'invalid-key',
    val: string,
  }
}
