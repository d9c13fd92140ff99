/// <reference path="./warden-plugin-types.d.ts" />
declare module 'warden:plugin/completions@0.1.0' {
  /**
   * Values for `argument` that start from `value`; `context` holds the arguments already
   * chosen (name/value pairs).
   */
  export function complete(target: CompletionRef, argument: string, value: string, context: Array<[string, string]>): Completion;
  export type ToolError = import('warden:plugin/types@0.1.0').ToolError;
  /**
   * What is being completed.
   */
  export type CompletionRef = CompletionRefPrompt | CompletionRefResourceTemplate;
  /**
   * A prompt of this plugin, by its own name (without the manifest's prefix).
   */
  export interface CompletionRefPrompt {
    tag: 'prompt',
    val: string,
  }
  /**
   * A resource template of this plugin, by its URI template.
   */
  export interface CompletionRefResourceTemplate {
    tag: 'resource-template',
    val: string,
  }
  export interface Completion {
    /**
     * At most 100.
     */
    values: Array<string>,
    /**
     * How many values there are in all, when known.
     */
    total?: number,
    hasMore: boolean,
  }
}
