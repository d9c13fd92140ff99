declare module 'warden:plugin/types@0.1.0' {
  /**
   * Hints for MCP clients, mirrored into the tool's `annotations`.
   */
  export interface Annotations {
    /**
     * The tool does not change its environment.
     */
    readOnly: boolean,
    /**
     * The tool may destroy or overwrite data (meaningful when not read-only).
     */
    destructive: boolean,
    /**
     * Calling the tool twice with the same arguments has no further effect.
     */
    idempotent: boolean,
    /**
     * The tool talks to an open world (the web, remote hosts).
     */
    openWorld: boolean,
  }
  /**
   * Whether a call of the tool may run as a task (MCP tasks extension): the client gets a
   * task handle at once and polls `tasks/get` for the result, or cancels it.
   * # Variants
   * 
   * ## `"never"`
   * 
   * The call always answers in its own request.
   * ## `"optional"`
   * 
   * A task when the client declared tasks and the call calls `context.as-task`, or
   * runs longer than a moment; otherwise answered in its own request.
   * ## `"required"`
   * 
   * Only as a task: a client that did not declare tasks is refused before the call runs.
   */
  export type TaskSupport = 'never' | 'optional' | 'required';
  /**
   * One tool as it appears in MCP `tools/list`.
   */
  export interface ToolInfo {
    /**
     * Unique name, `[a-zA-Z0-9_.-]{1,64}` (MCP rule); the manifest may add a prefix.
     */
    name: string,
    title?: string,
    description: string,
    /**
     * JSON Schema (draft 2020-12) of the arguments object, as JSON text.
     */
    inputSchema: string,
    /**
     * JSON Schema of `tool-output.structured`, as JSON text.
     */
    outputSchema?: string,
    annotations: Annotations,
    task: TaskSupport,
  }
  /**
   * Bytes with their media type (the host base64-encodes them for MCP).
   */
  export interface Media {
    mimeType: string,
    data: Uint8Array,
  }
  /**
   * The body of an embedded resource.
   */
  export type ResourceBody = ResourceBodyText | ResourceBodyBlob;
  export interface ResourceBodyText {
    tag: 'text',
    val: string,
  }
  export interface ResourceBodyBlob {
    tag: 'blob',
    val: Uint8Array,
  }
  /**
   * A resource embedded in a tool result or returned by `resources.read`.
   */
  export interface EmbeddedResource {
    uri: string,
    mimeType?: string,
    body: ResourceBody,
  }
  /**
   * One MCP content block.
   */
  export type ContentBlock = ContentBlockText | ContentBlockImage | ContentBlockAudio | ContentBlockResource;
  export interface ContentBlockText {
    tag: 'text',
    val: string,
  }
  export interface ContentBlockImage {
    tag: 'image',
    val: Media,
  }
  export interface ContentBlockAudio {
    tag: 'audio',
    val: Media,
  }
  export interface ContentBlockResource {
    tag: 'resource',
    val: EmbeddedResource,
  }
  /**
   * A successful tool result.
   */
  export interface ToolOutput {
    content: Array<ContentBlock>,
    /**
     * Structured result as JSON text; must match `output-schema` when one is declared.
     */
    structured?: string,
  }
  /**
   * A tool failure. The host turns it into an MCP result with `isError: true`,
   * so the message should say what went wrong and what to do about it.
   */
  export type ToolError = ToolErrorInvalidArguments | ToolErrorAccessDenied | ToolErrorNotFound | ToolErrorTimeout | ToolErrorFailed;
  /**
   * The arguments do not fit the tool's input schema or its rules.
   */
  export interface ToolErrorInvalidArguments {
    tag: 'invalid-arguments',
    val: string,
  }
  /**
   * A capability call was refused by the manifest's grants.
   */
  export interface ToolErrorAccessDenied {
    tag: 'access-denied',
    val: string,
  }
  /**
   * The thing the tool was asked about does not exist.
   */
  export interface ToolErrorNotFound {
    tag: 'not-found',
    val: string,
  }
  /**
   * The tool gave up waiting.
   */
  export interface ToolErrorTimeout {
    tag: 'timeout',
    val: string,
  }
  /**
   * Anything else.
   */
  export interface ToolErrorFailed {
    tag: 'failed',
    val: string,
  }
}
