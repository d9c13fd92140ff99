/// <reference path="./warden-plugin-types.d.ts" />
declare module 'warden:plugin/tools@0.1.0' {
  /**
   * Every tool of this plugin. Called once when the plugin loads; the list must not change.
   */
  export function listTools(): Array<ToolInfo>;
  /**
   * Run one tool. `arguments` is the JSON object the client sent.
   */
  export function callTool(name: string, arguments: string): ToolOutput;
  export type ToolInfo = import('warden:plugin/types@0.1.0').ToolInfo;
  export type ToolOutput = import('warden:plugin/types@0.1.0').ToolOutput;
  export type ToolError = import('warden:plugin/types@0.1.0').ToolError;
}
