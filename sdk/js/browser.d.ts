// warden:browser/browser (wit/deps/browser/browser.wit): pages in the host's browser sessions.
// Arguments and results are the WIT's, in camelCase (records as objects, variants as
// `{ tag, val }`, u64 as bigint); every function and page method is async. Errors are
// CapabilityError.

/** A browser tab: the WIT `page` resource's methods (navigate, snapshot, click, fill, ...). */
export interface Page {
  id(): Promise<string>;
  url(): Promise<string>;
  navigate(url: string, waitUntil: 'load' | 'dom-content-loaded' | 'network-idle', timeoutMs: number): Promise<string>;
  snapshot(includeText: boolean): Promise<any>;
  click(handle: bigint, options: any): Promise<void>;
  fill(handle: bigint, text: string): Promise<void>;
  press(keys: string): Promise<void>;
  evaluate(expression: string): Promise<string>;
  screenshot(area: any, jpeg: boolean): Promise<Uint8Array>;
  extract(format: any): Promise<any>;
  close(): Promise<void>;
  [method: string]: (...args: any[]) => Promise<any>;
}
export declare function openPage(session?: string): Promise<Page>;
export declare function listTabs(session?: string): Promise<any[]>;
export declare function attachTab(session: string | undefined, id: string): Promise<Page>;
export declare function closeSession(session: string): Promise<void>;
export declare function listSessions(): Promise<string[]>;
export declare function createSession(session: string, profile?: string): Promise<void>;
export declare function consoleMessages(page: Page, sinceLast: boolean, clear: boolean): Promise<any>;
export declare function networkRequests(page: Page, query: any): Promise<any>;
export declare function addRoute(session: string | undefined, urlGlob: string, action: any): Promise<number>;
export declare function removeRoute(session: string | undefined, id: number): Promise<void>;
export declare function listRoutes(session?: string): Promise<any[]>;
export declare function setEmulation(session: string | undefined, emulation: any): Promise<void>;
export declare function getEmulation(session?: string): Promise<any>;
export declare function storageItems(page: Page, area: 'local' | 'session'): Promise<[string, string][]>;
export declare function setStorageItem(page: Page, area: 'local' | 'session', key: string, value?: string): Promise<void>;
export declare function clearStorage(page: Page, area: 'local' | 'session'): Promise<void>;
