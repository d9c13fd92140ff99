/// <reference path="./warden-plugin-types.d.ts" />
declare module 'warden:plugin/prompts@0.1.0' {
  export function listPrompts(): Array<PromptInfo>;
  /**
   * Fill in prompt `name`. `arguments` are the client's name/value pairs.
   */
  export function getPrompt(name: string, arguments: Array<[string, string]>): Prompt;
  export type ContentBlock = import('warden:plugin/types@0.1.0').ContentBlock;
  export type ToolError = import('warden:plugin/types@0.1.0').ToolError;
  export interface PromptArgument {
    name: string,
    description?: string,
    required: boolean,
  }
  /**
   * One prompt as it appears in MCP `prompts/list`.
   */
  export interface PromptInfo {
    /**
     * Unique within the plugin, `[a-zA-Z0-9_.-]{1,64}`; the manifest's `tool_prefix` is
     * added to it as to tool names.
     */
    name: string,
    title?: string,
    description?: string,
    arguments: Array<PromptArgument>,
  }
  /**
   * # Variants
   * 
   * ## `"user"`
   * 
   * ## `"assistant"`
   */
  export type Role = 'user' | 'assistant';
  export interface PromptMessage {
    role: Role,
    content: ContentBlock,
  }
  /**
   * A prompt filled in with its arguments.
   */
  export interface Prompt {
    description?: string,
    messages: Array<PromptMessage>,
  }
}
