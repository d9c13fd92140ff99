// Errors: ToolError (what a tool fails with) and CapabilityError (what a host capability
// fails with; thrown from a tool it keeps its message and maps to the matching tool error).

const TOOL_KINDS = {
  'invalid-arguments': 'invalid arguments',
  'access-denied': 'access denied',
  'not-found': 'not found',
  timeout: 'timeout',
  failed: 'failed',
};

/** Why a tool call failed. The host shows `<kind>: <message>` with `isError: true`. */
export class ToolError extends Error {
  constructor(kind, message) {
    if (!(kind in TOOL_KINDS)) throw new TypeError(`unknown tool error kind ${JSON.stringify(kind)}`);
    super(String(message));
    this.name = 'ToolError';
    /** `invalid-arguments`, `access-denied`, `not-found`, `timeout` or `failed`. */
    this.kind = kind;
  }
  static invalidArguments(message) { return new ToolError('invalid-arguments', message); }
  static accessDenied(message) { return new ToolError('access-denied', message); }
  static notFound(message) { return new ToolError('not-found', message); }
  static timeout(message) { return new ToolError('timeout', message); }
  static failed(message) { return new ToolError('failed', message); }
  toString() { return `${TOOL_KINDS[this.kind]}: ${this.message}`; }
}

const CAPABILITY_KINDS = {
  'access-denied': ['access denied', 'access-denied'],
  'limit-reached': ['limit reached', 'failed'],
  'not-found': ['not found', 'not-found'],
  'stale-element': ['stale element', 'not-found'],
  gone: ['gone', 'not-found'],
  timeout: ['timeout', 'timeout'],
  'invalid-argument': ['invalid argument', 'invalid-arguments'],
  io: ['i/o error', 'failed'],
};

/**
 * Why a host capability call failed (`warden:types/errors.error`). Act on `kind`; the message
 * is for the agent (access-denied and limit-reached messages name the manifest key to set).
 */
export class CapabilityError extends Error {
  constructor(kind, message) {
    super(String(message));
    this.name = 'CapabilityError';
    /** `access-denied`, `limit-reached`, `not-found`, `stale-element`, `gone`, `timeout`, `invalid-argument` or `io`. */
    this.kind = kind in CAPABILITY_KINDS ? kind : 'io';
  }
  toString() { return `${CAPABILITY_KINDS[this.kind][0]}: ${this.message}`; }
  /** The tool error this becomes when a tool throws it (same mapping as the Rust SDK). */
  toToolError() { return new ToolError(CAPABILITY_KINDS[this.kind][1], this.message); }
}

/** Anything a tool threw, as a tool error: never a trap. */
export function toToolError(thrown) {
  if (thrown instanceof ToolError) return thrown;
  if (thrown instanceof CapabilityError) return thrown.toToolError();
  const fromHost = capabilityError(thrown);
  if (fromHost) return fromHost.toToolError();
  // Errors of other SDK modules (AskError) say what they become.
  if (thrown instanceof Error && typeof thrown.toToolError === 'function') return thrown.toToolError();
  if (thrown instanceof Error) {
    const text = thrown.message || thrown.name || 'error';
    return ToolError.failed(thrown.name && thrown.name !== 'Error' ? `${thrown.name}: ${text}` : text);
  }
  let text;
  try {
    text = typeof thrown === 'string' ? thrown : JSON.stringify(thrown) ?? String(thrown);
  } catch {
    text = String(thrown);
  }
  return ToolError.failed(`uncaught exception: ${text}`);
}

/** The CapabilityError inside an error thrown by a generated import binding, if any. */
export function capabilityError(thrown) {
  const payload = thrown && typeof thrown === 'object' ? thrown.payload : undefined;
  if (payload && typeof payload === 'object' && typeof payload.tag === 'string') {
    return new CapabilityError(payload.tag, payload.val ?? '');
  }
  return undefined;
}

/** Calls a host import, turning its error payload into a CapabilityError. */
export function host(fn, ...args) {
  try {
    return fn(...args);
  } catch (thrown) {
    throw capabilityError(thrown) ?? thrown;
  }
}
