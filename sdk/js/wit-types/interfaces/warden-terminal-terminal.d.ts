/// <reference path="./warden-terminal-types.d.ts" />
declare module 'warden:terminal/terminal@0.1.0' {
  export function open(target: Target, cols: number, rows: number): Session;
  /**
   * A handle to the plugin's session `id`, opened by the calling client.
   */
  export function attach(id: string): Session;
  /**
   * The plugin's sessions the calling client opened, oldest first.
   */
  export function listSessions(): Array<SessionInfo>;
  export type Error = import('warden:terminal/types@0.1.0').Error;
  /**
   * Where a session runs.
   */
  export type Target = TargetLocal | TargetSsh;
  /**
   * A PTY on the host (grant `terminal.local`).
   */
  export interface TargetLocal {
    tag: 'local',
  }
  /**
   * An SSH session to a host alias (grant `terminal.ssh_hosts`).
   */
  export interface TargetSsh {
    tag: 'ssh',
    val: string,
  }
  /**
   * What a session is and how far it got.
   */
  export interface SessionInfo {
    /**
     * Stable id, unique among the plugin's sessions.
     */
    id: string,
    /**
     * `local` or `ssh:ALIAS`.
     */
    target: string,
    cols: number,
    rows: number,
    /**
     * Writes are refused (grant `terminal.read_only`).
     */
    readOnly: boolean,
    /**
     * Bytes of output so far: the offset the next byte will have.
     */
    outputBytes: bigint,
    /**
     * The shell's exit status once it has ended (-1 when killed by a signal).
     */
    exitStatus?: number,
    /**
     * The shell has ended; no more output will come.
     */
    ended: boolean,
    /**
     * Seconds since the Unix epoch.
     */
    created: bigint,
  }
  /**
   * Output read from a session.
   */
  export interface Chunk {
    data: Uint8Array,
    /**
     * The offset to read from next.
     */
    next: bigint,
    /**
     * Bytes between the requested offset and `data` that had already left the
     * session's buffers: its last 64 KiB, and the first 8 MiB of the output of the
     * latest `begin-command`, kept until the next one.
     */
    skipped: bigint,
    /**
     * The session has ended and `data` reaches the end of its output.
     */
    ended: boolean,
  }
  
  export class Session implements Disposable {
    /**
     * This type does not have a public constructor.
     */
    private constructor();
    info(): SessionInfo;
    /**
    * Send bytes to the terminal's input.
    */
    write(data: Uint8Array): void;
    /**
    * Output from `offset` (a byte position in the session's output stream), at most
    * `max-bytes`, waiting up to `wait-ms` for output when there is none yet.
    */
    read(offset: bigint, maxBytes: number, waitMs: number): Chunk;
    /**
    * The last `lines` lines of the buffered output, ANSI escapes stripped.
    */
    scrollback(lines: number): string;
    /**
    * The terminal screen as text, as a terminal emulator would show it (for TUIs).
    */
    screen(): string;
    /**
    * Change the terminal size (the PTY's or the SSH channel's window) and the screen's.
    */
    resize(cols: number, rows: number): void;
    /**
    * A command was typed that prints `end-marker` when it finishes: the session is
    * `busy` until the host sees that marker in later output, the session ends, or the
    * shell's prompt (the cursor line when this was called) is back, e.g. after Ctrl-C.
    */
    beginCommand(endMarker: Uint8Array): void;
    /**
    * A command started with `begin-command` has not finished yet.
    */
    busy(): boolean;
    /**
    * Close the session: the shell is hung up and its channel or PTY released.
    */
    close(): void;
    /**
    * `uri` (one of this plugin's resources) shows this session's output: clients
    * subscribed to it hear of new output (at most 8 URIs per session; URIs this plugin
    * does not serve are never announced).
    */
    watch(uri: string): void;
    [Symbol.dispose](): void;
  }
}
