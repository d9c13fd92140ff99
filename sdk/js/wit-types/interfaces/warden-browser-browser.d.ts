/// <reference path="./warden-browser-types.d.ts" />
declare module 'warden:browser/browser@0.1.0' {
  /**
   * Open a tab in `session` (created on first use; "default" when none is given).
   */
  export function openPage(session: string | undefined): Page;
  /**
   * The session's first tab, or a new one when it has none (the session is created on
   * first use). Concurrent calls that find no tab share the one this opens, where each
   * `open-page` would open its own.
   */
  export function firstPage(session: string | undefined): Page;
  /**
   * The tabs of a session, including those the page opened itself.
   */
  export function listTabs(session: string | undefined): Array<TabInfo>;
  /**
   * Take hold of a tab of the session by id (a popup, for instance).
   */
  export function attachTab(session: string | undefined, id: string): Page;
  /**
   * Close a session and all its tabs.
   */
  export function closeSession(session: string): void;
  /**
   * The sessions this plugin has open.
   */
  export function listSessions(): Array<string>;
  /**
   * Search the web through the manifest's `[search]` backend: page `page` (from 1) of the
   * results for `query`. `not-found` when no backend is configured; `access-denied` unless
   * the backend's origin is in the plugin's `grants.browser.origins`.
   */
  export function search(query: string, page: number): Array<SearchResult>;
  /**
   * The tab's console messages, oldest first; `since-last` gives only those recorded since
   * the previous read, `clear` empties the log after this read.
   */
  export function consoleMessages(page: Page, sinceLast: boolean, clear: boolean): ConsoleLog;
  /**
   * The tab's requests, oldest first, filtered by `query`.
   */
  export function networkRequests(page: Page, query: NetworkQuery): NetworkLog;
  /**
   * Add a route to a session: requests of its tabs (new ones and popups too) whose URL
   * matches `url-glob` are blocked or answered by `action`. Document requests pass the
   * origin guard first, so no route reaches or fakes an origin that is not granted.
   * The first matching route wins. Returns the route's id.
   */
  export function addRoute(session: string | undefined, urlGlob: string, action: RouteAction): number;
  /**
   * Remove one route of a session.
   */
  export function removeRoute(session: string | undefined, id: number): void;
  /**
   * The routes of a session, in the order they match.
   */
  export function listRoutes(session: string | undefined): Array<Route>;
  /**
   * Replace a session's emulation; it applies to its open tabs and to every tab it opens.
   */
  export function setEmulation(session: string | undefined, emulation: Emulation): void;
  export function getEmulation(session: string | undefined): Emulation;
  /**
   * The items of the page's `localStorage` or `sessionStorage` (grant `browser.cookies`).
   */
  export function storageItems(page: Page, area: StorageArea): Array<[string, string]>;
  /**
   * Set an item; `value: none` removes it.
   */
  export function setStorageItem(page: Page, area: StorageArea, key: string, value: string | undefined): void;
  export function clearStorage(page: Page, area: StorageArea): void;
  /**
   * Open a session, with one of the manifest's `[browser.profiles]` (grant
   * `browser.profiles`): its proxy, locale, timezone, user agent and viewport. A profile
   * with a `user_data_dir` runs the session in a browser of its own on that persistent
   * directory, one session at a time (a second one is refused, naming the first). Without
   * a profile this is what `open-page` does on first use. A session that is open already
   * cannot take a profile: close it first.
   */
  export function createSession(session: string, profile: string | undefined): void;
  /**
   * Save `session`'s cookies and the `localStorage` of the origins its tabs show in the
   * host, under `name` (this plugin's own; an older state of that name is replaced). The
   * values never come back to the plugin.
   */
  export function saveState(session: string | undefined, name: string): SavedState;
  /**
   * Open `session` (not open yet) with a saved state's cookies and local storage, in place
   * before its first page loads.
   */
  export function createSessionFromState(session: string, state: string): SavedState;
  /**
   * The states this plugin has saved.
   */
  export function listStates(): Array<SavedState>;
  export function deleteState(name: string): void;
  export type Error = import('warden:browser/types@0.1.0').Error;
  /**
   * When a navigation counts as done.
   * # Variants
   * 
   * ## `"load"`
   * 
   * ## `"dom-content-loaded"`
   * 
   * ## `"network-idle"`
   */
  export type WaitUntil = 'load' | 'dom-content-loaded' | 'network-idle';
  /**
   * A box in CSS pixels of the main frame's viewport.
   */
  export interface Rect {
    x: number,
    y: number,
    width: number,
    height: number,
  }
  export interface ElementStates {
    disabled?: boolean,
    checked?: boolean,
    /**
     * A checkbox in the indeterminate state.
     */
    mixed?: boolean,
    selected?: boolean,
    expanded?: boolean,
    focused?: boolean,
    required?: boolean,
    readonly?: boolean,
    /**
     * Outside the viewport (scrolling reaches it).
     */
    offscreen?: boolean,
  }
  /**
   * One element of a snapshot.
   */
  export interface Element {
    /**
     * Stays the same for the same DOM node for the life of the document.
     */
    handle: bigint,
    /**
     * Index into `snapshot.frames`; 0 is the main frame.
     */
    frame: number,
    /**
     * ARIA role, or a finer kind for inputs (`password`, `email`, `file`...).
     */
    role: string,
    /**
     * Accessible name.
     */
    name: string,
    /**
     * Current value of a form control. Password fields and fields filled from a
     * secret are always masked.
     */
    value?: string,
    /**
     * Selected attributes an agent needs: placeholder, href, type, options...
     */
    attributes: Array<[string, string]>,
    states: ElementStates,
    bounds?: Rect,
    /**
     * Clickable, fillable or otherwise actionable.
     */
    interactive: boolean,
    /**
     * Heading level (1-6), 0 otherwise.
     */
    level: number,
    /**
     * Index into `snapshot.overlays` when the element sits in one.
     */
    overlay?: number,
  }
  /**
   * A modal, cookie banner or other layer that covers the page.
   */
  export interface Overlay {
    /**
     * `cookie_banner`, `modal`, `dialog`...
     */
    kind: string,
    label: string,
  }
  export interface FrameInfo {
    url: string,
    name: string,
    /**
     * Index of the parent frame; none for the main frame.
     */
    parent?: number,
    /**
     * A cross-origin frame whose contents the snapshot could not read.
     */
    opaque: boolean,
  }
  export interface PageMeta {
    url: string,
    title: string,
    /**
     * `login`, `search`, `article`, `form`... when the page makes it plain.
     */
    pageType?: string,
    hasLoginForm: boolean,
    hasCaptcha: boolean,
    formCount: number,
    description?: string,
  }
  /**
   * A JavaScript dialog waiting for an answer.
   */
  export interface DialogInfo {
    /**
     * `alert`, `confirm`, `prompt` or `beforeunload`.
     */
    kind: string,
    message: string,
    defaultPrompt: string,
  }
  export interface Snapshot {
    meta: PageMeta,
    elements: Array<Element>,
    overlays: Array<Overlay>,
    frames: Array<FrameInfo>,
    /**
     * Text blocks (headings, paragraphs) are included only when asked for.
     */
    textIncluded: boolean,
  }
  /**
   * # Variants
   * 
   * ## `"left"`
   * 
   * ## `"middle"`
   * 
   * ## `"right"`
   */
  export type MouseButton = 'left' | 'middle' | 'right';
  export interface Modifiers {
    alt?: boolean,
    ctrl?: boolean,
    meta?: boolean,
    shift?: boolean,
  }
  export interface ClickOptions {
    button: MouseButton,
    /**
     * 2 for a double click.
     */
    count: number,
    modifiers: Modifiers,
  }
  /**
   * What `wait-for` waits for.
   */
  export type WaitCondition = WaitConditionText | WaitConditionTextGone | WaitConditionSelector | WaitConditionUrl;
  /**
   * The text appears in the page (any frame the snapshot can read).
   */
  export interface WaitConditionText {
    tag: 'text',
    val: string,
  }
  /**
   * The text is gone.
   */
  export interface WaitConditionTextGone {
    tag: 'text-gone',
    val: string,
  }
  /**
   * A CSS selector matches an element.
   */
  export interface WaitConditionSelector {
    tag: 'selector',
    val: string,
  }
  /**
   * The URL matches a glob (`*` any run of characters).
   */
  export interface WaitConditionUrl {
    tag: 'url',
    val: string,
  }
  export type ScreenshotArea = ScreenshotAreaViewport | ScreenshotAreaFullPage | ScreenshotAreaElement;
  export interface ScreenshotAreaViewport {
    tag: 'viewport',
  }
  export interface ScreenshotAreaFullPage {
    tag: 'full-page',
  }
  export interface ScreenshotAreaElement {
    tag: 'element',
    val: bigint,
  }
  export interface Cookie {
    name: string,
    value: string,
    domain: string,
    path: string,
    /**
     * Seconds since the Unix epoch; none for a session cookie.
     */
    expires?: number,
    httpOnly: boolean,
    secure: boolean,
    sameSite?: string,
  }
  /**
   * One web search result, as the search backend gave it (text trimmed, http(s) URLs only).
   */
  export interface SearchResult {
    title: string,
    url: string,
    snippet: string,
  }
  export interface TabInfo {
    id: string,
    url: string,
    title: string,
    /**
     * The tab that opened this one (window.open, target=_blank).
     */
    opener?: string,
  }
  /**
   * # Variants
   * 
   * ## `"in-progress"`
   * 
   * ## `"completed"`
   * 
   * ## `"canceled"`
   * 
   * The page or the browser cancelled it.
   * ## `"refused"`
   * 
   * Refused: the plugin has no `grants.browser.download-dir`, or the page that
   * started it held a secret the host typed (its name and URL are withheld then).
   * ## `"too-large"`
   * 
   * Larger than `grants.browser.download-max`: cancelled, nothing kept.
   * ## `"failed"`
   * 
   * Completed, but the host could not move it into the session's directory.
   */
  export type DownloadStatus = 'in-progress' | 'completed' | 'canceled' | 'refused' | 'too-large' | 'failed';
  /**
   * A file a page of the session downloaded.
   */
  export interface Download {
    /**
     * The browser's id for it.
     */
    id: string,
    /**
     * Origin and path of its URL (`data:`, `blob:` by scheme only).
     */
    source: string,
    /**
     * Its name in the session's download directory (the page's suggestion, made safe).
     */
    fileName: string,
    /**
     * Where it is on the Warden host, once completed.
     */
    path?: string,
    status: DownloadStatus,
    receivedBytes: bigint,
    totalBytes?: bigint,
  }
  /**
   * A point in CSS pixels of the main frame's viewport.
   */
  export interface Point {
    x: number,
    y: number,
  }
  /**
   * Where a drag ends.
   */
  export type DragTarget = DragTargetElement | DragTargetPoint | DragTargetOffset;
  export interface DragTargetElement {
    tag: 'element',
    val: bigint,
  }
  export interface DragTargetPoint {
    tag: 'point',
    val: Point,
  }
  /**
   * This far from where the drag starts (sliders).
   */
  export interface DragTargetOffset {
    tag: 'offset',
    val: Point,
  }
  export interface DragOptions {
    /**
     * Intermediate moves between press and release (0: the host's default).
     */
    steps: number,
    /**
     * A finger instead of the mouse.
     */
    touch: boolean,
  }
  /**
   * How a drag was carried out.
   * # Variants
   * 
   * ## `"mouse"`
   * 
   * Mouse press, moves, release (sliders, sortable lists driven by mouse events).
   * ## `"html5"`
   * 
   * The page started a native HTML5 drag; it was dropped on the target.
   * ## `"touch"`
   * 
   * Touch start, moves, end.
   */
  export type DragKind = 'mouse' | 'html5' | 'touch';
  /**
   * # Variants
   * 
   * ## `"text"`
   * 
   * ## `"markdown"`
   * 
   * ## `"html"`
   */
  export type ContentFormat = 'text' | 'markdown' | 'html';
  export interface PageContent {
    title: string,
    /**
     * The URL the tab shows (after redirects).
     */
    url: string,
    content: string,
    /**
     * `article` (readability found one), `main`, `body`, or `document` for HTML.
     */
    source: string,
  }
  export interface PdfOptions {
    landscape: boolean,
    printBackground: boolean,
    /**
     * Like "1-3, 5"; none for every page.
     */
    pageRanges?: string,
    /**
     * Paper size in inches; none for US Letter (8.5 x 11).
     */
    paperWidth?: number,
    paperHeight?: number,
  }
  /**
   * One console message, uncaught exception or browser log entry of a tab.
   */
  export interface ConsoleEntry {
    /**
     * Numbers the tab's messages in order, from 1.
     */
    seq: bigint,
    /**
     * `debug`, `info`, `log`, `warning` or `error` (uncaught exceptions are `error`).
     */
    level: string,
    /**
     * `console`, `exception`, or the browser's log source (`network`, `security`...).
     */
    source: string,
    text: string,
    /**
     * `URL:line` where the message came from, when known.
     */
    location?: string,
  }
  export interface ConsoleLog {
    entries: Array<ConsoleEntry>,
    /**
     * How many messages the tab keeps at most.
     */
    capacity: number,
    /**
     * How many older messages were dropped to stay within `capacity`.
     */
    dropped: bigint,
  }
  /**
   * One request of a tab. Headers and bodies are never recorded.
   */
  export interface NetworkEntry {
    seq: bigint,
    method: string,
    url: string,
    /**
     * `Document`, `Script`, `Image`, `XHR`, `Fetch`, `Stylesheet`...
     */
    resourceType: string,
    status?: number,
    mimeType?: string,
    /**
     * Bytes received over the network (headers and encoded body).
     */
    encodedBytes?: bigint,
    durationMs?: number,
    /**
     * Why the request failed (`net::ERR_...`), when it did.
     */
    failure?: string,
    /**
     * `origin guard` or `route <glob>` when Warden blocked the request, `mock <glob>`
     * when a route answered it.
     */
    intercepted?: string,
    /**
     * Still waiting for its answer.
     */
    pending: boolean,
  }
  export interface NetworkLog {
    entries: Array<NetworkEntry>,
    capacity: number,
    dropped: bigint,
  }
  export interface NetworkQuery {
    /**
     * Only URLs matching this glob (`*` any run of characters).
     */
    urlGlob?: string,
    /**
     * Only this resource type (case-insensitive).
     */
    resourceType?: string,
    /**
     * Only requests that failed, were blocked or answered 400 or more.
     */
    failedOnly: boolean,
    /**
     * Only requests recorded since the last read of this tab's log.
     */
    sinceLast: boolean,
    /**
     * Empty the tab's log after this read.
     */
    clear: boolean,
  }
  /**
   * What a route answered a mocked request with.
   */
  export interface MockResponse {
    status: number,
    contentType: string,
    headers: Array<[string, string]>,
    body: string,
  }
  export type RouteAction = RouteActionBlock | RouteActionMock;
  /**
   * Fail the request (`net::ERR_BLOCKED_BY_CLIENT`); the site never sees it.
   */
  export interface RouteActionBlock {
    tag: 'block',
  }
  /**
   * Answer the request without sending it.
   */
  export interface RouteActionMock {
    tag: 'mock',
    val: MockResponse,
  }
  export interface Route {
    id: number,
    urlGlob: string,
    action: RouteAction,
  }
  export interface Viewport {
    width: number,
    height: number,
    deviceScale: number,
    mobile: boolean,
  }
  export interface Geolocation {
    latitude: number,
    longitude: number,
    accuracy: number,
  }
  /**
   * What a session pretends to be. Nothing set is the browser's own behaviour.
   */
  export interface Emulation {
    viewport?: Viewport,
    userAgent?: string,
    /**
     * A BCP 47 tag such as `de-DE` (also sent as Accept-Language).
     */
    locale?: string,
    /**
     * An IANA zone such as `Asia/Tokyo`.
     */
    timezone?: string,
    /**
     * Also grants the geolocation permission to the session's pages.
     */
    geolocation?: Geolocation,
    /**
     * `light` or `dark`.
     */
    colorScheme?: string,
    offline: boolean,
  }
  /**
   * # Variants
   * 
   * ## `"local"`
   * 
   * ## `"session"`
   */
  export type StorageArea = 'local' | 'session';
  /**
   * What a saved session state holds: counts and origins only (the values stay in the host).
   */
  export interface SavedState {
    name: string,
    cookies: number,
    /**
     * Origins whose `localStorage` it holds.
     */
    origins: Array<string>,
    /**
     * Values left out because they hold a secret typed into the session.
     */
    leftOut: number,
  }
  
  export class Page implements Disposable {
    /**
     * This type does not have a public constructor.
     */
    private constructor();
    /**
    * The tab's id (stable for its life).
    */
    id(): string;
    /**
    * The page's current URL.
    */
    url(): string;
    /**
    * Navigate; fails with access-denied when the URL's origin is not granted.
    * Returns the final URL.
    */
    navigate(url: string, waitUntil: WaitUntil, timeoutMs: number): string;
    /**
    * Move through the tab's navigation history (-1 back, 1 forward).
    */
    history(delta: number, waitUntil: WaitUntil, timeoutMs: number): string;
    reload(waitUntil: WaitUntil, timeoutMs: number): string;
    /**
    * The elements of the page and of every frame it can read.
    */
    snapshot(includeText: boolean): Snapshot;
    click(handle: bigint, options: ClickOptions): void;
    clickAt(x: number, y: number, options: ClickOptions): void;
    hover(handle: bigint): void;
    focus(handle: bigint): void;
    /**
    * Replace the value of a text field.
    */
    fill(handle: bigint, text: string): void;
    /**
    * Fill a field with a secret the admin keeps in the manifest (grant
    * `browser.secrets`). The value never comes back in any answer.
    */
    fillSecret(handle: bigint, name: string): void;
    /**
    * Check that `fill` (or `fill-secret` of the secret named, with its grant and origin)
    * would take the element, changing nothing: a batch of fields is checked before the
    * first is filled.
    */
    checkFill(handle: bigint, secret: string | undefined): void;
    /**
    * Type into the focused element, key by key.
    */
    typeText(text: string, delayMs: number): void;
    /**
    * Press a key or a combination such as `Enter`, `Control+A`, `Shift+Tab`.
    */
    press(keys: string): void;
    /**
    * Select options of a <select> by value or label; returns the selected values.
    */
    select(handle: bigint, values: Array<string>): Array<string>;
    setChecked(handle: bigint, checked: boolean): void;
    /**
    * Put host files into a file input. Every path must be under one of the plugin's
    * `browser.upload_dirs`.
    */
    upload(handle: bigint, paths: Array<string>): void;
    scrollIntoView(handle: bigint): void;
    /**
    * Scroll the page (or the element under the handle) by a delta in CSS pixels.
    */
    scroll(handle: bigint | undefined, dx: number, dy: number): void;
    waitFor(condition: WaitCondition, timeoutMs: number): void;
    /**
    * PNG or JPEG bytes.
    */
    screenshot(area: ScreenshotArea, jpeg: boolean): Uint8Array;
    /**
    * A screenshot with set-of-mark labels: each rect (main-frame viewport, CSS pixels)
    * framed and tagged with its label (letters, digits and `@` only) on the image.
    */
    screenshotMarked(area: ScreenshotArea, jpeg: boolean, marks: Array<[Rect, string]>): Uint8Array;
    /**
    * Evaluate a JavaScript expression (grant `browser.eval_js`); the result as JSON text.
    */
    evaluate(expression: string): string;
    /**
    * Cookies visible to this page's URL (grant `browser.cookies`).
    */
    cookies(): Array<Cookie>;
    setCookie(cookie: Cookie): void;
    clearCookies(): void;
    /**
    * The dialog waiting for an answer, if any.
    */
    dialog(): DialogInfo | undefined;
    /**
    * Accept or dismiss the waiting dialog (with the text for a prompt).
    */
    answerDialog(accept: boolean, promptText: string | undefined): void;
    /**
    * Close the tab.
    */
    close(): void;
    /**
    * The downloads of this tab's session (the newest 64), oldest first.
    */
    downloads(): Array<Download>;
    /**
    * The downloads of this tab's session that started or changed status since the last
    * call (on any tab of the session): what an action's answer reports.
    */
    downloadNews(): Array<Download>;
    /**
    * Wait until the session has a download and none is in progress; false on timeout.
    */
    waitDownloads(timeoutMs: number): boolean;
    /**
    * Press on the element, move in steps to `target`, release. A native HTML5 drag the page
    * starts is carried out as one (dragenter, dragover, drop); a touch drag is a swipe.
    * Returns how the drag went.
    */
    drag(handle: bigint, target: DragTarget, options: DragOptions): DragKind;
    /**
    * Tap the element with a finger (touch emulation is turned on for the tab).
    */
    tap(handle: bigint): void;
    /**
    * Click the element itself with a DOM click, skipping the checks that it is enabled
    * and not covered (whatever covers it is not clicked).
    */
    forceClick(handle: bigint): void;
    /**
    * Print the page to PDF (headless browsers only); the PDF bytes.
    */
    pdf(options: PdfOptions): Uint8Array;
    /**
    * The page's main content (readability; else its <main> or <body>) as text or
    * Markdown, or the document's HTML. The host reads the DOM the browser holds and
    * extracts it itself: no script runs in the page.
    */
    extract(format: ContentFormat): PageContent;
    [Symbol.dispose](): void;
  }
}
