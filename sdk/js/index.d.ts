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
  /** `warden:plugin/groups`: export it beside the others when the plugin declares groups. */
  groups: { groups(): GroupInfo[] };
}

/** A grant kind a group's tools use (`grants.*` of the manifest). */
export type Capability = 'browser' | 'capture-http' | 'capture-page' | 'http' | 'terminal' | 'sftp' | 'rdp' | 'files';

/** A group as the host gets it. */
export interface GroupInfo {
  name: string;
  summary: string;
  tools: string[];
  needs: Capability[];
}

/** A named group of a plugin's tools, which the manifest lists or offers by name
 * (`tools = { groups = [...], offer = [...] }`). */
export declare class Group {
  /** `name`: `[a-z0-9_-]{1,32}`; `summary`: one line on what the tools are for (agents read it). */
  constructor(name: string, summary: string);
  readonly name: string;
  readonly summary: string;
  /** The group's tools, by name. Without any, it takes every tool that no other group names. */
  tools(names: string[]): this;
  /** The grant kinds its tools use: the group is not listed when none of them is granted. */
  needs(kinds: Capability[]): this;
}

export interface ResourceTemplateInfo {
  /** RFC 6570 template: `{name}` matches a run without `/`, `{+name}` one that may span `/`. */
  uriTemplate: string;
  name: string;
  description?: string;
  mimeType?: string;
}

type MaybePromise<T> = T | Promise<T>;

export interface PromptArgument {
  name: string;
  description?: string;
  required: boolean;
}

/** A prompt (MCP `prompts/list`): a name, a title, a description and its arguments. */
export declare class Prompt {
  constructor(name: string);
  readonly name: string;
  readonly arguments: PromptArgument[];
  title(text: string): this;
  description(text: string): this;
  /** An argument the client must give (`prompts/get` is refused without it). */
  argument(name: string, description?: string): this;
  /** An argument the client may leave out. */
  optionalArgument(name: string, description?: string): this;
}

export interface PromptMessageValue {
  role: 'user' | 'assistant';
  content: ContentBlock;
}
/** One message of a filled-in prompt: text or a content block. */
export declare const PromptMessage: {
  user(content: string | ContentBlock): PromptMessageValue;
  assistant(content: string | ContentBlock): PromptMessageValue;
};
export interface PromptResult {
  description?: string;
  messages: PromptMessageValue[];
}

/** What a completion is asked for. */
export type CompletionRef = { kind: 'prompt'; name: string } | { kind: 'resource-template'; uriTemplate: string };
export interface CompletionValue {
  /** At most 100 (the SDK keeps the first 100 and sets `hasMore`). */
  values: string[];
  total?: number;
  hasMore: boolean;
}
export declare const Completion: {
  readonly MAX_VALUES: 100;
  /** The `candidates` that start with `prefix`, at most 100. */
  matching(candidates: Iterable<string>, prefix: string): CompletionValue;
};

/** The variables of `uri` under a URI template, or undefined when it does not match. */
export declare function matchTemplate(template: string, uri: string): Record<string, string> | undefined;

export declare class Plugin {
  tool(tool: Tool<any>): this;
  resource(info: ResourceInfo, read: (uri: string) => MaybePromise<EmbeddedResourceValue[]>): this;
  resourceTemplate(
    info: ResourceTemplateInfo,
    read: (uri: string, vars: Record<string, string>) => MaybePromise<EmbeddedResourceValue[]>,
  ): this;
  /** A prompt and what fills it in; required arguments are checked present first. */
  prompt(prompt: Prompt, fill: (args: Record<string, string>) => MaybePromise<PromptMessageValue[] | PromptResult>): this;
  /** What completes prompt arguments and template variables (without it, nothing is offered). */
  completion(
    complete: (ref: CompletionRef, argument: string, value: string, context: Record<string, string>) => MaybePromise<CompletionValue | string[]>,
  ): this;
  /** Adds a group of tools; a tool in no group is in `default`. Export `groups` then:
   * `export const { tools, resources, prompts, completions, groups } = plugin.exports();` */
  group(group: Group): this;
  /** The groups as the host gets them; throws when a group names a tool the plugin lacks or
   * two groups name the same tool. */
  groups(): GroupInfo[];
  /** Runs a tool by name (for unit tests). */
  call(name: string, argumentsJson: string): Promise<ToolResult>;
  /** Reads a resource by URI: a fixed one, else the first template that matches (for unit tests). */
  readResource(uri: string): Promise<EmbeddedResourceValue[]>;
  /** Fills a prompt in (for unit tests). */
  getPrompt(name: string, args?: Record<string, string>): Promise<PromptResult>;
  /** Completes an argument (for unit tests). */
  complete(ref: CompletionRef, argument: string, value: string, context?: Record<string, string>): Promise<CompletionValue>;
  /** `export const { tools, resources, prompts, completions } = plugin.exports();` (and `groups`
   * beside them when the plugin declares groups). */
  exports(): PluginExports;
}

export type LogLevel = 'debug' | 'info' | 'warning' | 'error';

export type AskErrorKind = 'unsupported' | 'limit-reached' | 'failed';
/** Why a request to the client failed; thrown from a tool it is a `failed` tool error. */
export declare class AskError extends Error {
  constructor(kind: AskErrorKind, message: string);
  /** `unsupported` (the client did not declare the capability, or no client can be asked),
   * `limit-reached` (this call asked as often as it may) or `failed`. */
  kind: AskErrorKind;
  toToolError(): ToolError;
}

export type JsonObject = { [key: string]: unknown };
export type Question =
  | { kind: 'elicit'; message: string; schema: JsonObject | ObjectSchema<any> }
  | { kind: 'elicit-url'; message: string; url: string }
  | { kind: 'sample'; params: JsonObject }
  | { kind: 'list-roots' };
/** One question for `context.ask`. */
export declare const Question: {
  /** A form: a JSON Schema object of primitive properties (or `s.object({...})`). */
  elicit(message: string, schema: JsonObject | ObjectSchema<any>): Extract<Question, { kind: 'elicit' }>;
  /** A page to open (`https://`, or `http://` on a loopback host); never put a secret in it. */
  elicitUrl(message: string, url: string): Extract<Question, { kind: 'elicit-url' }>;
  /** `sampling/createMessage` params: `messages`, `maxTokens`, ... */
  sample(params: JsonObject): Extract<Question, { kind: 'sample' }>;
  listRoots(): Extract<Question, { kind: 'list-roots' }>;
};

/** What the user did with a form or a page: `content` holds the form's values on accept
 * (null for a page: the user agreed to open it). */
export type ElicitAnswer = { action: 'accept'; content: JsonObject | null } | { action: 'decline' | 'cancel' };
/** The sampling result: `role`, `content`, `model`, `stopReason`. */
export type SampleResult = {
  role: 'assistant' | 'user';
  content: { type: string; text?: string; [key: string]: unknown };
  model: string;
  stopReason?: string;
  [key: string]: unknown;
};
export interface Root {
  uri: string;
  name?: string;
}
export type AnswerTo<Q> = Q extends { kind: 'elicit' | 'elicit-url' } ? ElicitAnswer : Q extends { kind: 'sample' } ? SampleResult : Root[];

/** What the client of this call can be asked (the capabilities it declared). */
export interface ClientCapabilities {
  /** Form elicitation (`elicit`). */
  elicitation: boolean;
  /** URL-mode elicitation (`elicitUrl`). */
  elicitationUrl: boolean;
  sampling: boolean;
  roots: boolean;
}

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
  /** True once the client has cancelled this call: return early. */
  cancelled(): boolean;
  /** Go on as an MCP task; false when the call cannot be one. Ask what must be asked first. */
  asTask(): boolean;
  /** What the client can be asked; ask only that, or get AskError `unsupported`. */
  clientCapabilities(): ClientCapabilities;
  /**
   * Asks the client several questions at once, each under a key of yours; the answers come
   * back under the same keys. On the stateless 2026-07-28 wire the call runs again from the
   * start once the client answers: what runs before an ask may run twice, so ask first, act
   * after, and ask the same questions in the same order.
   */
  ask<Q extends Record<string, Question>>(questions: Q): Promise<{ [K in keyof Q]: AnswerTo<Q[K]> }>;
  /** Asks the user a form (MCP elicitation, form mode). */
  elicit(message: string, schema: JsonObject | ObjectSchema<any>): Promise<ElicitAnswer>;
  /** Sends the user to a page (MCP elicitation, URL mode); `accept` is consent to open it. */
  elicitUrl(message: string, url: string): Promise<ElicitAnswer>;
  /** Asks the client's model (MCP sampling). */
  sample(params: JsonObject): Promise<SampleResult>;
  /** Asks the client's model one question; the text of its answer. */
  sampleText(prompt: string, maxTokens: number): Promise<string>;
  /** The client's roots (MCP `roots/list`). */
  listRoots(): Promise<Root[]>;
  AskError: typeof AskError;
  Question: typeof Question;
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

/** Why the plugin's settings could not be read. */
export declare class SettingsError extends Error {
  /** `upstream` or `io` (as `wasi:config/store` says). */
  kind: 'upstream' | 'io';
}

/** The plugin's settings from the admin's manifest (`[plugin.settings]`), read through
 * `wasi:config/store`: add "settings" to package.json "warden.imports". A string setting reads
 * as written, any other value as JSON text. Not for secrets. */
export declare const settings: {
  /** The setting `key` as text, or undefined. */
  get(key: string): string | undefined;
  /** The setting `key` decoded from JSON (a string that is not JSON as itself), or undefined. */
  json<T = unknown>(key: string): T | undefined;
  /** Every setting, key -> text. */
  all(): Record<string, string>;
  SettingsError: typeof SettingsError;
};
