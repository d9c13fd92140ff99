// Types of the Warden JavaScript plugin SDK (they follow wit/plugin.wit).

/** A schema: the JSON Schema shown in `tools/list` and the validator run before the tool. */
export declare class Schema<T> {
  /** Adds a description (shown to the agent). */
  describe(text: string): this;
  /** The property may be left out. */
  optional(): Schema<T | undefined>;
  /** The property may be left out; the function then gets `value`. */
  default(value: T): Schema<T>;
  /** The JSON Schema (draft 2020-12) as a plain object. */
  toJSON(): Record<string, unknown>;
  /** Validates `value`; throws an invalid-arguments ToolError naming the property. */
  parse(value: unknown, path?: string): T;
  /** The validated type (for `Infer`). */
  readonly __type?: T;
}
export declare class StringSchema extends Schema<string> {
  /** At least `n` characters (`min(1)`: "must not be empty"). */
  min(n: number): this;
  max(n: number): this;
  pattern(regex: RegExp | string): this;
  /** An absolute URL (`format: uri`). */
  url(): this;
}
export declare class NumberSchema extends Schema<number> {
  min(n: number): this;
  max(n: number): this;
}
export declare class ArraySchema<T> extends Schema<T[]> {
  min(n: number): this;
  max(n: number): this;
}
type Shape = Record<string, Schema<any>>;
type OptionalKeys<S extends Shape> = { [K in keyof S]: undefined extends Infer<S[K]> ? K : never }[keyof S];
type RequiredKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>;
/** The object type an `s.object({...})` validates into. */
export type ObjectOf<S extends Shape> = { [K in RequiredKeys<S>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Infer<S[K]> };
export declare class ObjectSchema<S extends Shape> extends Schema<ObjectOf<S>> {
  readonly shape: S;
}
/** The type a schema validates into: `type Args = Infer<typeof args>`. */
export type Infer<X> = X extends Schema<infer T> ? T : never;

/** Schema builders: `s.object({ name: s.string().min(1).describe('Who to greet') })`. */
export declare const s: {
  string(): StringSchema;
  number(): NumberSchema;
  integer(): NumberSchema;
  boolean(): Schema<boolean>;
  enum<const V extends readonly string[]>(values: V): Schema<V[number]>;
  array<T>(items: Schema<T>): ArraySchema<T>;
  object<S extends Shape>(shape?: S): ObjectSchema<S>;
};

export type ToolErrorKind = 'invalid-arguments' | 'access-denied' | 'not-found' | 'timeout' | 'failed';

/** Why a tool call failed; the host shows `<kind>: <message>` with `isError: true`. */
export declare class ToolError extends Error {
  constructor(kind: ToolErrorKind, message: string);
  readonly kind: ToolErrorKind;
  static invalidArguments(message: string): ToolError;
  static accessDenied(message: string): ToolError;
  static notFound(message: string): ToolError;
  static timeout(message: string): ToolError;
  static failed(message: string): ToolError;
}

export type CapabilityErrorKind =
  | 'access-denied'
  | 'limit-reached'
  | 'not-found'
  | 'stale-element'
  | 'gone'
  | 'timeout'
  | 'invalid-argument'
  | 'io';

/** Why a host capability call failed (`warden:types/errors.error`). Thrown out of a tool, it
 *  becomes the matching ToolError with its message intact. */
export declare class CapabilityError extends Error {
  constructor(kind: CapabilityErrorKind, message: string);
  readonly kind: CapabilityErrorKind;
  toToolError(): ToolError;
}

export type ContentBlock =
  | { tag: 'text'; val: string }
  | { tag: 'image'; val: { mimeType: string; data: Uint8Array } }
  | { tag: 'audio'; val: { mimeType: string; data: Uint8Array } }
  | { tag: 'resource'; val: EmbeddedResourceValue };
export interface EmbeddedResourceValue {
  uri: string;
  mimeType?: string;
  body: { tag: 'text'; val: string } | { tag: 'blob'; val: Uint8Array };
}
type Bytes = Uint8Array | string | ArrayLike<number>;
export declare const Content: {
  text(text: string): ContentBlock;
  image(mimeType: string, data: Bytes): ContentBlock;
  audio(mimeType: string, data: Bytes): ContentBlock;
  resource(resource: EmbeddedResourceValue): ContentBlock;
};
export declare const EmbeddedResource: {
  text(uri: string, text: string, mimeType?: string): EmbeddedResourceValue;
  blob(uri: string, data: Bytes, mimeType?: string): EmbeddedResourceValue;
};

/** A successful result: content blocks and optional structured content. */
export declare class ToolOutput {
  content: ContentBlock[];
  structured: unknown;
  static text(text: string): ToolOutput;
  static image(mimeType: string, data: Bytes): ToolOutput;
  static audio(mimeType: string, data: Bytes): ToolOutput;
  static resource(resource: EmbeddedResourceValue): ToolOutput;
  /** `value` as structured content, plus pretty JSON text. */
  static json(value: unknown): ToolOutput;
  with(block: ContentBlock | string): this;
  withStructured(value: unknown): this;
}

/** What a tool function may return: text, a JSON object (structured content), or a ToolOutput. */
export type ToolResult = string | ToolOutput | Record<string, unknown> | void;

export type TaskSupport = 'never' | 'optional' | 'required';

export interface ToolInfo {
  name: string;
  title?: string;
  description: string;
  inputSchema: string;
  outputSchema?: string;
  annotations: { readOnly: boolean; destructive: boolean; idempotent: boolean; openWorld: boolean };
  task: TaskSupport;
}

/** One tool: a name (`[a-zA-Z0-9_.-]{1,64}`), an argument schema and a function. */
export declare class Tool<S extends Shape = {}> {
  constructor(name: string, args: ObjectSchema<S>, fn: (args: ObjectOf<S>) => ToolResult | Promise<ToolResult>);
  constructor(name: string, fn: () => ToolResult | Promise<ToolResult>);
  readonly name: string;
  title(text: string): this;
  description(text: string): this;
  /** The schema of the structured result. */
  output(schema: ObjectSchema<any>): this;
  readOnly(): this;
  destructive(): this;
  idempotent(): this;
  openWorld(): this;
  task(support: TaskSupport): this;
  info(): ToolInfo;
  /** Parses and validates JSON arguments and runs the function (usable in unit tests). */
  call(argumentsJson: string): ToolResult | Promise<ToolResult>;
}

export interface ResourceInfo {
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

/** The four interfaces a component exports (`warden:plugin/{tools,resources,prompts,completions}`). */
export interface PluginExports {
  tools: object;
  resources: object;
  prompts: object;
  completions: object;
}

export declare class Plugin {
  tool(tool: Tool<any>): this;
  resource(info: ResourceInfo, read: (uri: string) => EmbeddedResourceValue[]): this;
  /** Runs a tool by name (for unit tests). */
  call(name: string, argumentsJson: string): Promise<ToolResult>;
  /** `export const { tools, resources, prompts, completions } = plugin.exports();` */
  exports(): PluginExports;
}

export type LogLevel = 'debug' | 'info' | 'warning' | 'error';

/** Services of the call in progress (always granted). */
export declare const context: {
  progress(done: number, total?: number, message?: string): void;
  log(level: LogLevel, message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warning(message: string): void;
  error(message: string): void;
  /** An opaque id of this call's conversation (its MCP session, or its client on the
   * stateless wire; empty for stdio). `state` is already scoped by it. */
  conversation(): string;
  /** True once the client has cancelled this call. */
  cancelled(): boolean;
  /** Go on as an MCP task; false when the call cannot be one. */
  asTask(): boolean;
  clientCapabilities(): { elicitation: boolean; sampling: boolean; roots: boolean };
};

/** Why a `state` write was refused. */
export declare class StateError extends Error {
  /** `limit-reached` (over the manifest's `limits.state`) or `invalid-key`. */
  kind: 'limit-reached' | 'invalid-key';
}

/** What the plugin keeps between calls, per conversation, held by the host (always granted).
 * An instance serves one conversation, but a call may run in a fresh one: module-level
 * variables are only a cache. */
export declare const state: {
  /** The bytes kept under `key`, or undefined. */
  get(key: string): Uint8Array | undefined;
  /** Keeps `value` under `key` (throws StateError when refused). */
  set(key: string, value: Uint8Array | string): void;
  /** Forgets `key`. */
  remove(key: string): void;
  /** Every kept key that starts with `prefix`, sorted. */
  keys(prefix?: string): string[];
  getJson<T = unknown>(key: string): T | undefined;
  setJson(key: string, value: unknown): void;
  StateError: typeof StateError;
};
