/// <reference path="./warden-plugin-types.d.ts" />
declare module 'warden:plugin/resources@0.1.0' {
  export function listResources(): Array<ResourceInfo>;
  export function listTemplates(): Array<ResourceTemplate>;
  export function readResource(uri: string): Array<EmbeddedResource>;
  export type EmbeddedResource = import('warden:plugin/types@0.1.0').EmbeddedResource;
  export type ToolError = import('warden:plugin/types@0.1.0').ToolError;
  export interface ResourceInfo {
    uri: string,
    name: string,
    description?: string,
    mimeType?: string,
  }
  export interface ResourceTemplate {
    /**
     * RFC 6570 template, such as `sessions://{id}/info`.
     */
    uriTemplate: string,
    name: string,
    description?: string,
    mimeType?: string,
  }
}
