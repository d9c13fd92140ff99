// What the plugin keeps between calls (always granted). An instance serves one conversation
// only, but a call may run in a fresh one (a parallel call, after a trap or 30 idle seconds),
// so module-level variables are a cache, never seen by another client's call. The host keeps
// these values per conversation (an MCP session, or a stateless client): each agent reads
// only its own. A write is kept at once; calls of one
// conversation may run at the same time, and each key is written whole (the last write wins).

import * as raw from 'warden:plugin/state@0.1.0';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Why a write was refused: `limit-reached` (over `limits.state`) or `invalid-key`. */
export class StateError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = 'StateError';
    this.kind = kind;
  }
}

function rethrow(e) {
  const payload = e?.payload;
  if (payload?.tag) throw new StateError(payload.tag, String(payload.val));
  throw e;
}

/** The bytes kept under `key` (a Uint8Array), or undefined. */
export function get(key) {
  return raw.get(String(key)) ?? undefined;
}

/** Keeps `value` (a Uint8Array or a string) under `key`. */
export function set(key, value) {
  const bytes = typeof value === 'string' ? encoder.encode(value) : value;
  try {
    raw.set(String(key), bytes);
  } catch (e) {
    rethrow(e);
  }
}

/** Forgets `key`. */
export function remove(key) {
  raw.delete(String(key));
}

/** Every kept key that starts with `prefix`, sorted. */
export function keys(prefix = '') {
  return raw.keys(String(prefix));
}

/** The value kept under `key`, decoded from JSON, or undefined. */
export function getJson(key) {
  const bytes = get(key);
  return bytes === undefined ? undefined : JSON.parse(decoder.decode(bytes));
}

/** Keeps `value` under `key`, encoded as JSON. */
export function setJson(key, value) {
  set(key, JSON.stringify(value));
}
