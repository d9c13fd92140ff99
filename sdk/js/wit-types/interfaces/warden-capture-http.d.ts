/// <reference path="./warden-capture-types.d.ts" />
declare module 'warden:capture/http@0.1.0' {
  export function get(request: Request): Response;
  export type Error = import('warden:capture/types@0.1.0').Error;
  export interface Request {
    /**
     * Absolute `http://` or `https://` URL.
     */
    url: string,
    /**
     * Extra request headers.
     */
    headers: Array<[string, string]>,
    /**
     * Give up after this many milliseconds (default 30 s); the plugin's call_timeout still bounds the call.
     */
    timeoutMs?: number,
    /**
     * Keep at most this many body bytes (the host caps it at the grant's `max_body`).
     */
    maxBytes?: bigint,
  }
  export interface Response {
    status: number,
    headers: Array<[string, string]>,
    body: Uint8Array,
    /**
     * The URL after redirects.
     */
    finalUrl: string,
    /**
     * How many redirects were followed.
     */
    redirects: number,
    /**
     * The body was longer than the byte cap and was cut.
     */
    truncated: boolean,
  }
}
