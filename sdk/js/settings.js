// The plugin's settings from the admin's manifest (`[plugin.settings]`), through the standard
// `wasi:config/store` interface; add "settings" to package.json "warden.imports". Read-only and
// the same for every client. A string setting reads as written, any other value (number,
// table, array) as JSON text, so `json()` reads both. Settings are not secrets: credentials
// stay in the host's grants.

import * as raw from 'wasi:config/store@0.2.0-rc.1';

/** The host could not read the plugin's settings (`upstream` or `io`). */
export class SettingsError extends Error {
  constructor(kind, message) {
    super(`the plugin's settings cannot be read: ${message}`);
    this.name = 'SettingsError';
    this.kind = kind;
  }
}

function rethrow(e) {
  const payload = e?.payload;
  if (payload?.tag) throw new SettingsError(payload.tag, String(payload.val));
  throw e;
}

/** The setting `key` as text (a string as written, another value as JSON), or undefined. */
export function get(key) {
  try {
    return raw.get(String(key)) ?? undefined;
  } catch (e) {
    rethrow(e);
  }
}

/** The setting `key` decoded from JSON, or undefined; a string setting that is not JSON is
 * that string. */
export function json(key) {
  const text = get(key);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Every setting as an object of key -> text. */
export function all() {
  let pairs;
  try {
    pairs = raw.getAll();
  } catch (e) {
    rethrow(e);
  }
  return Object.fromEntries([...pairs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
