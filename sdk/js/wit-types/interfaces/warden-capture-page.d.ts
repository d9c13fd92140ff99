/// <reference path="./warden-capture-types.d.ts" />
declare module 'warden:capture/page@0.1.0' {
  /**
   * Open `url` in the capture profile, wait, and return its content.
   */
  export function capturePage(request: CaptureRequest): Capture;
  /**
   * The capture profile's cookies for a URL's host or for a domain, after opening
   * `open-url` when given. httpOnly cookies are left out unless granted.
   */
  export function getCookies(request: CookiesRequest): Cookies;
  /**
   * Open the login page, wait until the login condition holds (the user logs in), then
   * capture `url`.
   */
  export function loginThenCapture(request: LoginRequest): Capture;
  /**
   * Make sure the capture profile is logged in: open `url`; when the condition already
   * holds, say so; otherwise open `login-url` and wait until the condition holds (the user
   * logs in) or the timeout ends. Captures nothing.
   */
  export function ensureLogin(request: EnsureLoginRequest): LoginState;
  export type Error = import('warden:capture/types@0.1.0').Error;
  /**
   * # Variants
   * 
   * ## `"html"`
   * 
   * The document's HTML as the browser holds it now.
   * ## `"text"`
   * 
   * The main content's visible text.
   * ## `"markdown"`
   * 
   * The main content as Markdown.
   */
  export type Format = 'html' | 'text' | 'markdown';
  /**
   * When a navigation counts as done.
   * # Variants
   * 
   * ## `"load"`
   * 
   * ## `"dom-content-loaded"`
   * 
   * ## `"network-idle"`
   */
  export type WaitUntil = 'load' | 'dom-content-loaded' | 'network-idle';
  export interface Cookie {
    name: string,
    value: string,
    domain: string,
    path: string,
    httpOnly: boolean,
    secure: boolean,
    /**
     * Seconds since the epoch; none for a session cookie.
     */
    expires?: number,
  }
  export interface CaptureRequest {
    /**
     * Absolute URL of a granted origin.
     */
    url: string,
    waitUntil: WaitUntil,
    /**
     * Milliseconds for the whole call (0: 30 s).
     */
    timeoutMs: number,
    /**
     * Also return the page's cookies (needs `capture.cookies`).
     */
    captureCookies: boolean,
    format: Format,
  }
  export interface Capture {
    content: string,
    title: string,
    finalUrl: string,
    /**
     * Present when cookies were asked for.
     */
    cookies?: Array<Cookie>,
  }
  export interface Cookies {
    /**
     * `name=value; ...`, ready for a Cookie request header.
     */
    header: string,
    cookies: Array<Cookie>,
  }
  export interface CookiesRequest {
    /**
     * A URL of the site: its host selects the cookies, and its origin must be in
     * `capture.origins`. Give this or `domain`.
     */
    url?: string,
    /**
     * A domain such as `app.example.com`: the cookies the browser would send to it (set
     * for it or for a parent domain). It must be the host of a `capture.origins` pattern.
     */
    domain?: string,
    /**
     * Open this URL (origin in `capture.origins`) first, so the site can set or refresh
     * its cookies; the tab is closed before the cookies are read.
     */
    openUrl?: string,
  }
  export interface EnsureLoginRequest {
    /**
     * The page that shows whether the profile is logged in.
     */
    url: string,
    /**
     * The login page to open when it is not (default: stay on `url`).
     */
    loginUrl?: string,
    /**
     * Logged in when the tab's URL matches this glob.
     */
    untilUrl?: string,
    /**
     * Logged in when this CSS selector matches in the page.
     */
    untilSelector?: string,
    /**
     * Milliseconds to wait for the login (0: 120 s).
     */
    timeoutMs: number,
  }
  export interface LoginState {
    /**
     * The condition held as soon as `url` loaded: nobody had to log in.
     */
    alreadyLoggedIn: boolean,
    /**
     * Where the tab was when the condition held.
     */
    finalUrl: string,
    title: string,
  }
  export interface LoginRequest {
    /**
     * The page to capture once logged in.
     */
    url: string,
    /**
     * The login page to open first (default: `url`).
     */
    loginUrl?: string,
    /**
     * Logged in when the tab's URL matches this glob (e.g. `http://host/account*`).
     */
    untilUrl?: string,
    /**
     * Logged in when this CSS selector matches in the page.
     */
    untilSelector?: string,
    /**
     * Milliseconds to wait for the login (0: 120 s).
     */
    timeoutMs: number,
    format: Format,
  }
}
