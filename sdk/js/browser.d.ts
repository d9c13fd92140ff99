// warden:browser/browser: the functions and the `page` resource of wit/deps/browser/browser.wit
// (declarations generated into wit-types/), every call async. Errors are CapabilityError.
/// <reference path="./wit-types/interfaces/warden-browser-browser.d.ts" />
import type * as raw from 'warden:browser/browser@0.1.0';

export type * from 'warden:browser/browser@0.1.0';

type Async<F> = F extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never;
type WithPage<F> = F extends (page: raw.Page, ...rest: infer A) => infer R ? (page: Page, ...rest: A) => Promise<R> : never;

/** A browser tab: the WIT `page` resource's methods (navigate, snapshot, click, fill, ...), async. */
export type Page = { [K in keyof raw.Page]: Async<raw.Page[K]> };

/** Open a tab in `session` (created on first use; "default" when none is given). */
export declare const openPage: (session?: string) => Promise<Page>;
/** The session's first tab, or a new one when it has none: concurrent calls share one. */
export declare const firstPage: (session?: string) => Promise<Page>;
/** Take hold of a tab of the session by id (a popup, for instance). */
export declare const attachTab: (session: string | undefined, id: string) => Promise<Page>;
export declare const listTabs: Async<typeof raw.listTabs>;
/** Web search through the manifest's [search] backend: page `page` (from 1) of the results. */
export declare const search: Async<typeof raw.search>;
export declare const closeSession: Async<typeof raw.closeSession>;
export declare const listSessions: Async<typeof raw.listSessions>;
export declare const createSession: Async<typeof raw.createSession>;
export declare const saveState: Async<typeof raw.saveState>;
export declare const createSessionFromState: Async<typeof raw.createSessionFromState>;
export declare const listStates: Async<typeof raw.listStates>;
export declare const deleteState: Async<typeof raw.deleteState>;
export declare const consoleMessages: WithPage<typeof raw.consoleMessages>;
export declare const networkRequests: WithPage<typeof raw.networkRequests>;
export declare const addRoute: Async<typeof raw.addRoute>;
export declare const removeRoute: Async<typeof raw.removeRoute>;
export declare const listRoutes: Async<typeof raw.listRoutes>;
export declare const setEmulation: Async<typeof raw.setEmulation>;
export declare const getEmulation: Async<typeof raw.getEmulation>;
export declare const storageItems: WithPage<typeof raw.storageItems>;
export declare const setStorageItem: WithPage<typeof raw.setStorageItem>;
export declare const clearStorage: WithPage<typeof raw.clearStorage>;
