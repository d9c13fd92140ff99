// Host imports are synchronous calls into Warden; the SDK offers them as async functions
// (idiomatic, and ready for hosts that run them concurrently) and turns their error
// payloads into CapabilityError.

import { host } from './errors.js';

/** `fn` as an async function whose results are wrapped by `wrapResult`. */
export function asyncCall(fn, wrapResult = (v) => v) {
  return async (...args) => wrapResult(host(fn, ...args.map(unwrap)));
}

// Wrapped resources passed back to the host (a page to `consoleMessages`) must be the
// binding's own objects.
const targets = new WeakMap();
const unwrap = (arg) => (arg && typeof arg === 'object' && targets.has(arg) ? targets.get(arg) : arg);

/** A host resource (a browser page, a terminal session) with async, error-converting methods. */
export function asyncResource(resource) {
  const proxy = new Proxy(resource, {
    get(target, key) {
      const value = target[key];
      if (typeof value !== 'function') return value;
      return async (...args) => host((...a) => value.apply(target, a), ...args.map(unwrap));
    },
  });
  targets.set(proxy, resource);
  return proxy;
}

// The bindings give records and variants as plain objects, lists as arrays or typed arrays,
// and resources as instances of a class of their own.
const isResource = (v) =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v) && Object.getPrototypeOf(v) !== Object.prototype;

/** Every function of a host interface as an async function; resources come back wrapped. */
export function asyncModule(raw) {
  const out = {};
  for (const [name, fn] of Object.entries(raw)) {
    if (typeof fn !== 'function') continue;
    out[name] = asyncCall(fn, (v) => (isResource(v) ? asyncResource(v) : v));
  }
  return out;
}
