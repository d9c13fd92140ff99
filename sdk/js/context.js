// Services of the call in progress (always granted): progress, logging, cancellation, tasks.

import * as raw from 'warden:plugin/context@0.1.0';

/** Reports progress; sent to the client when it asked for progress. */
export function progress(done, total, message) {
  raw.progress(done, total ?? undefined, message ?? undefined);
}

/** Writes a log line (`debug`, `info`, `warning`, `error`) to the host log and the client. */
export function log(level, message) {
  raw.log(level, String(message));
}

export const debug = (message) => log('debug', message);
export const info = (message) => log('info', message);
export const warning = (message) => log('warning', message);
export const error = (message) => log('error', message);

/** An opaque id of this call's conversation (its MCP session, or its client on the stateless
 * wire; empty for stdio). `state` is already scoped by it. */
export function conversation() {
  return raw.conversation();
}

/** True once the client has cancelled this call: return early. */
export function cancelled() {
  return raw.cancelled();
}

/** Goes on as an MCP task; false when the call cannot be one. */
export function asTask() {
  return raw.asTask();
}

/** What the client can be asked: `{ elicitation, sampling, roots }`. */
export function clientCapabilities() {
  return raw.capabilities();
}
