import * as page from 'warden:capture/page@0.1.0';
import { host } from './errors.js';

/**
 * Opens `url` in the capture profile and resolves to `{ content, title, finalUrl, cookies }`.
 * Options: `format` (`text` default, `markdown`, `html`), `waitUntil` (`load` default,
 * `dom-content-loaded`, `network-idle`), `timeoutMs` (0: 30 s), `captureCookies`.
 */
export async function capturePage(url, options = {}) {
  return host(page.capturePage, {
    url: String(url),
    waitUntil: options.waitUntil ?? 'load',
    timeoutMs: options.timeoutMs ?? 0,
    captureCookies: options.captureCookies ?? false,
    format: options.format ?? 'text',
  });
}

/** The profile's cookies for `{ url }` or `{ domain }` (after opening `openUrl` when given). */
export async function getCookies(request) {
  return host(page.getCookies, {
    url: request.url,
    domain: request.domain,
    openUrl: request.openUrl,
  });
}

/** Opens the login page, waits until `untilUrl`/`untilSelector` holds, then captures `url`. */
export async function loginThenCapture(request) {
  return host(page.loginThenCapture, {
    url: request.url,
    loginUrl: request.loginUrl,
    untilUrl: request.untilUrl,
    untilSelector: request.untilSelector,
    timeoutMs: request.timeoutMs ?? 0,
    format: request.format ?? 'text',
  });
}

/** Makes sure the profile is logged in (the user logs in when it is not); captures nothing. */
export async function ensureLogin(request) {
  return host(page.ensureLogin, {
    url: request.url,
    loginUrl: request.loginUrl,
    untilUrl: request.untilUrl,
    untilSelector: request.untilSelector,
    timeoutMs: request.timeoutMs ?? 0,
  });
}
