/// <reference path="./interfaces/warden-browser-browser.d.ts" />
/// <reference path="./interfaces/warden-browser-types.d.ts" />
/// <reference path="./interfaces/warden-capture-http.d.ts" />
/// <reference path="./interfaces/warden-capture-page.d.ts" />
/// <reference path="./interfaces/warden-capture-types.d.ts" />
/// <reference path="./interfaces/warden-plugin-completions.d.ts" />
/// <reference path="./interfaces/warden-plugin-context.d.ts" />
/// <reference path="./interfaces/warden-plugin-prompts.d.ts" />
/// <reference path="./interfaces/warden-plugin-resources.d.ts" />
/// <reference path="./interfaces/warden-plugin-state.d.ts" />
/// <reference path="./interfaces/warden-plugin-tools.d.ts" />
/// <reference path="./interfaces/warden-plugin-types.d.ts" />
/// <reference path="./interfaces/warden-rdp-desktop.d.ts" />
/// <reference path="./interfaces/warden-rdp-types.d.ts" />
/// <reference path="./interfaces/warden-sftp-sftp.d.ts" />
/// <reference path="./interfaces/warden-sftp-types.d.ts" />
/// <reference path="./interfaces/warden-terminal-terminal.d.ts" />
/// <reference path="./interfaces/warden-terminal-types.d.ts" />
/// <reference path="./interfaces/warden-types-errors.d.ts" />
/// <reference path="./interfaces/wasi-config-store.d.ts" />
declare module 'warden:plugin/plugin@0.1.0' {
  export type * as WardenBrowserBrowser010 from 'warden:browser/browser@0.1.0'; // import warden:browser/browser@0.1.0
  export type * as WardenBrowserTypes010 from 'warden:browser/types@0.1.0'; // import warden:browser/types@0.1.0
  export type * as WardenCaptureHttp010 from 'warden:capture/http@0.1.0'; // import warden:capture/http@0.1.0
  export type * as WardenCapturePage010 from 'warden:capture/page@0.1.0'; // import warden:capture/page@0.1.0
  export type * as WardenCaptureTypes010 from 'warden:capture/types@0.1.0'; // import warden:capture/types@0.1.0
  export type * as WardenPluginContext010 from 'warden:plugin/context@0.1.0'; // import warden:plugin/context@0.1.0
  export type * as WardenPluginState010 from 'warden:plugin/state@0.1.0'; // import warden:plugin/state@0.1.0
  export type * as WardenPluginTypes010 from 'warden:plugin/types@0.1.0'; // import warden:plugin/types@0.1.0
  export type * as WardenRdpDesktop010 from 'warden:rdp/desktop@0.1.0'; // import warden:rdp/desktop@0.1.0
  export type * as WardenRdpTypes010 from 'warden:rdp/types@0.1.0'; // import warden:rdp/types@0.1.0
  export type * as WardenSftpSftp010 from 'warden:sftp/sftp@0.1.0'; // import warden:sftp/sftp@0.1.0
  export type * as WardenSftpTypes010 from 'warden:sftp/types@0.1.0'; // import warden:sftp/types@0.1.0
  export type * as WardenTerminalTerminal010 from 'warden:terminal/terminal@0.1.0'; // import warden:terminal/terminal@0.1.0
  export type * as WardenTerminalTypes010 from 'warden:terminal/types@0.1.0'; // import warden:terminal/types@0.1.0
  export type * as WardenTypesErrors010 from 'warden:types/errors@0.1.0'; // import warden:types/errors@0.1.0
  export type * as WasiConfigStore020Rc1 from 'wasi:config/store@0.2.0-rc.1'; // import wasi:config/store@0.2.0-rc.1
  export * as tools from 'warden:plugin/tools@0.1.0'; // export warden:plugin/tools@0.1.0
  export * as resources from 'warden:plugin/resources@0.1.0'; // export warden:plugin/resources@0.1.0
  export * as prompts from 'warden:plugin/prompts@0.1.0'; // export warden:plugin/prompts@0.1.0
  export * as completions from 'warden:plugin/completions@0.1.0'; // export warden:plugin/completions@0.1.0
}
