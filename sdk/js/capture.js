// warden:capture: HTTP performed by the host (`grants.capture.http_hosts`) and pages captured
// in the capture profile (`grants.capture.origins`).
export { httpGet } from './capture-http.js';
export { capturePage, getCookies, loginThenCapture, ensureLogin } from './capture-page.js';
