// Run plugin code in Node, outside Warden (unit tests): `node --import @warden/plugin-sdk/testing --test`.
// The `warden:*` host imports resolve to stand-ins: context calls do nothing (`cancelled()` is
// false; the client can be asked nothing, so `ask` fails as `unsupported`), state is kept in
// memory for the test process, and every capability call fails with a CapabilityError of kind
// `io` saying that host services exist only inside Warden. The plugin's settings are those a
// test gives to `setSettings` (as the manifest's `[plugin.settings]` would).

import { registerHooks } from 'node:module';

const UNAVAILABLE = 'host capabilities are unavailable outside Warden (this is a unit test in Node)';

const NAMES = {
  'warden:plugin/context': ['progress', 'log', 'conversation', 'cancelled', 'asTask', 'capabilities', 'ask'],
  'warden:plugin/state': ['get', 'set', 'delete', 'keys'],
  'warden:capture/http': ['get'],
  'warden:capture/page': ['capturePage', 'getCookies', 'loginThenCapture', 'ensureLogin'],
  'warden:browser/browser': ['openPage', 'firstPage', 'search', 'listTabs', 'attachTab', 'closeSession', 'listSessions', 'consoleMessages', 'networkRequests', 'addRoute', 'removeRoute', 'listRoutes', 'setEmulation', 'getEmulation', 'storageItems', 'setStorageItem', 'clearStorage', 'createSession'],
  'warden:terminal/terminal': ['open', 'attach', 'listSessions'],
  'warden:sftp/sftp': ['list', 'stat', 'read', 'write', 'mkdir', 'remove', 'rename', 'realpath', 'sessionHost'],
  'wasi:config/store': ['get', 'getAll'],
  'warden:rdp/desktop': ['open', 'info', 'listDesktops', 'screenshot', 'pointerMove', 'click', 'drag', 'scroll', 'typeText', 'pressKeys', 'wait', 'resize', 'close'],
};

function stub(specifier) {
  const iface = specifier.replace(/@[^@]*$/, '');
  const names = NAMES[iface];
  if (!names) return undefined;
  if (iface === 'warden:plugin/context') {
    return [
      'export function progress() {}',
      'export function log() {}',
      "export function conversation() { return ''; }",
      'export function cancelled() { return false; }',
      'export function asTask() { return false; }',
      'export function capabilities() { return { elicitation: false, elicitationUrl: false, sampling: false, roots: false }; }',
      `export function ask() { throw Object.assign(new Error('unsupported'), { payload: { tag: 'unsupported', val: ${JSON.stringify(UNAVAILABLE)} } }); }`,
    ].join('\n');
  }
  if (iface === 'warden:plugin/state') {
    // One conversation, in memory, for the test process.
    return [
      'const kept = new Map();',
      'export function get(key) { return kept.get(key); }',
      'export function set(key, value) { kept.set(key, new Uint8Array(value)); }',
      'function remove(key) { kept.delete(key); }',
      'export { remove as delete };',
      'export function keys(prefix) { return [...kept.keys()].filter((k) => k.startsWith(prefix)).sort(); }',
    ].join('\n');
  }
  if (iface === 'wasi:config/store') {
    // The plugin's settings: those the test set with `setSettings`, else none.
    return [
      "const held = () => globalThis[Symbol.for('warden.settings')] ?? new Map();",
      'export function get(key) { return held().get(key); }',
      'export function getAll() { return [...held().entries()]; }',
    ].join('\n');
  }
  const fail = `() => { throw Object.assign(new Error(${JSON.stringify(UNAVAILABLE)}), { payload: { tag: 'io', val: ${JSON.stringify(UNAVAILABLE)} } }); }`;
  return names.map((name) => `export const ${name} = ${fail};`).join('\n');
}

registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith('warden:') || specifier.startsWith('wasi:config/')) return { url: `warden-stub:${specifier}`, shortCircuit: true };
    return next(specifier, context);
  },
  load(url, context, next) {
    if (url.startsWith('warden-stub:')) {
      const source = stub(url.slice('warden-stub:'.length));
      if (source === undefined) throw new Error(`unknown Warden interface ${url.slice('warden-stub:'.length)}`);
      return { format: 'module', source, shortCircuit: true };
    }
    return next(url, context);
  },
});

/** Give the plugin `settings` (an object, as `[plugin.settings]` in the manifest): a string is
 * read as written, any other value as JSON text. */
export function setSettings(settings) {
  const held = new Map();
  for (const [key, value] of Object.entries(settings ?? {})) {
    held.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  globalThis[Symbol.for('warden.settings')] = held;
}
