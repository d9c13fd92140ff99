declare module 'warden:plugin/context@0.1.0' {
  /**
   * Report progress of the current call. Forwarded to the client as an MCP progress
   * notification when the client asked for progress; otherwise dropped.
   */
  export function progress(done: number, total: number | undefined, message: string | undefined): void;
  /**
   * Write a log line: into the host log (tagged with the plugin), and to the client as an
   * MCP logging notification at or above the level it asked for.
   */
  export function log(level: LogLevel, message: string): void;
  /**
   * An opaque id of the conversation this call belongs to: one MCP session on the
   * 2025-11-25 wire, the authenticated client on the stateless 2026-07-28 wire, empty for
   * the one local client (stdio, the CLI). The host scopes `state` and browser session
   * names by it already; a plugin needs it only to tell conversations apart in what it
   * sends elsewhere.
   */
  export function conversation(): string;
  /**
   * True once the client has cancelled the current call. Long loops should check it
   * and return early; a call that ignores cancellation is interrupted by the host.
   */
  export function cancelled(): boolean;
  /**
   * The client's capabilities: ask only what it can answer, or get `unsupported`.
   */
  export function capabilities(): ClientCapabilities;
  /**
   * Ask the client one or more questions at once. Each has a key the plugin chooses
   * (unique within the list); the answers come back under the same keys, in the same
   * order. On the 2025-11-25 wire the host sends them as requests to the client and the
   * call waits. On 2026-07-28 the client answers an `InputRequiredResult` between two of
   * its requests: this run of the call gets `failed`, and the retry runs the call again
   * from the start with this ask answered at once; so ask before acting, and ask the same
   * questions in the same order. A client that did not declare a capability gets the
   * protocol's error for it, and the plugin `unsupported`.
   */
  export function ask(requests: Array<[string, InputRequest]>): Array<[string, InputAnswer]>;
  /**
   * Go on as a task: the client gets a task handle now and the rest of this call runs in
   * the background; later asks wait for the client's `tasks/update`. True if the call is a
   * task (now or already); false if it cannot be one (the tool's `task-support` is
   * `never`, the client did not declare tasks, or the wire has no tasks), and then the call
   * goes on as before. Ask what must be asked first: on 2026-07-28 asks before this point
   * are input rounds of the request, replayed from the start.
   */
  export function asTask(): boolean;
  /**
   * # Variants
   * 
   * ## `"debug"`
   * 
   * ## `"info"`
   * 
   * ## `"warning"`
   * 
   * ## `"error"`
   */
  export type LogLevel = 'debug' | 'info' | 'warning' | 'error';
  /**
   * Why a request to the client failed.
   */
  export type AskError = AskErrorUnsupported | AskErrorLimitReached | AskErrorFailed;
  /**
   * The client cannot do this (it did not declare the capability), or the call came
   * from no client (the CLI), or the entry point cannot ask (completions).
   */
  export interface AskErrorUnsupported {
    tag: 'unsupported',
    val: string,
  }
  /**
   * This call already asked the client as often as it may.
   */
  export interface AskErrorLimitReached {
    tag: 'limit-reached',
    val: string,
  }
  /**
   * The request is malformed, or the client answered with an error or not in time.
   */
  export interface AskErrorFailed {
    tag: 'failed',
    val: string,
  }
  /**
   * # Variants
   * 
   * ## `"accept"`
   * 
   * ## `"decline"`
   * 
   * ## `"cancel"`
   */
  export type ElicitAction = 'accept' | 'decline' | 'cancel';
  export interface ElicitAnswer {
    action: ElicitAction,
    /**
     * On accept: the form's values as a JSON object.
     */
    content?: string,
  }
  /**
   * An elicitation form: what to ask, and the form as a JSON Schema object of primitive
   * properties, as JSON text.
   */
  export interface ElicitForm {
    message: string,
    requestedSchema: string,
  }
  /**
   * Send the user to a web page (MCP elicitation, URL mode): for what must not pass
   * through the client, such as a third party's sign-in or a payment. The answer says
   * whether the user agreed to open it (`accept`, without content), not that they finished
   * there: the plugin checks that on its own side.
   */
  export interface ElicitUrl {
    message: string,
    /**
     * An `https://` URL (or `http://` on a loopback host), at most 2,048 bytes. It is
     * shown to the user: never put a secret in it.
     */
    url: string,
  }
  /**
   * One question for the client.
   */
  export type InputRequest = InputRequestElicit | InputRequestElicitUrl | InputRequestSample | InputRequestListRoots;
  /**
   * Ask the user (MCP elicitation, form mode).
   */
  export interface InputRequestElicit {
    tag: 'elicit',
    val: ElicitForm,
  }
  /**
   * Send the user to a page (MCP elicitation, URL mode); answered as `elicit`.
   */
  export interface InputRequestElicitUrl {
    tag: 'elicit-url',
    val: ElicitUrl,
  }
  /**
   * Ask the client's model (MCP sampling): the JSON of the `sampling/createMessage`
   * params (messages, maxTokens, ...).
   */
  export interface InputRequestSample {
    tag: 'sample',
    val: string,
  }
  /**
   * Ask for the client's roots (MCP `roots/list`).
   */
  export interface InputRequestListRoots {
    tag: 'list-roots',
  }
  /**
   * The client's answer to one `input-request`, of the same kind.
   */
  export type InputAnswer = InputAnswerElicit | InputAnswerSample | InputAnswerRoots;
  export interface InputAnswerElicit {
    tag: 'elicit',
    val: ElicitAnswer,
  }
  /**
   * The JSON of the sampling result (role, content, model, stopReason).
   */
  export interface InputAnswerSample {
    tag: 'sample',
    val: string,
  }
  /**
   * The JSON array of the client's roots (`uri`, `name`).
   */
  export interface InputAnswerRoots {
    tag: 'roots',
    val: string,
  }
  /**
   * What the client of this call can be asked (the capabilities it declared).
   */
  export interface ClientCapabilities {
    /**
     * Form elicitation.
     */
    elicitation: boolean,
    /**
     * URL-mode elicitation.
     */
    elicitationUrl: boolean,
    sampling: boolean,
    roots: boolean,
  }
}
