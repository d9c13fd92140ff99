/// <reference path="./warden-rdp-types.d.ts" />
declare module 'warden:rdp/desktop@0.1.0' {
  /**
   * Connect to host alias `host` (grant `rdp.hosts`), asking for `size` (default
   * 1024x768); the server may choose another.
   */
  export function open(host: string, size: DesktopSize | undefined): DesktopInfo;
  /**
   * The plugin's session `id`, opened by the calling client.
   */
  export function info(id: string): DesktopInfo;
  /**
   * The plugin's sessions the calling client opened, oldest first.
   */
  export function listDesktops(): Array<DesktopInfo>;
  /**
   * The current frame (or `region` of it), scaled by `scale` (0.05 to 1), as PNG.
   */
  export function screenshot(id: string, region: Rect | undefined, scale: number): Picture;
  /**
   * Move the pointer to (x, y).
   */
  export function pointerMove(id: string, x: number, y: number): void;
  /**
   * Move to (x, y) and click `count` times (1 or 2) with `button`.
   */
  export function click(id: string, x: number, y: number, button: MouseButton, count: number): void;
  /**
   * Press `button` at (from-x, from-y), move to (to-x, to-y) in steps, release.
   */
  export function drag(id: string, fromX: number, fromY: number, toX: number, toY: number, button: MouseButton): void;
  /**
   * Move to (x, y) and turn the wheel: `vertical` notches (positive: up/away), then
   * `horizontal` (positive: right).
   */
  export function scroll(id: string, x: number, y: number, vertical: number, horizontal: number): void;
  /**
   * Type Unicode text (as Unicode keyboard events, independent of the keyboard layout).
   */
  export function typeText(id: string, text: string): void;
  /**
   * Press the named keys in order and release them in reverse: one chord, such as
   * `["ctrl", "alt", "delete"]` or `["enter"]`. Unknown names are an invalid-argument.
   */
  export function pressKeys(id: string, keys: Array<string>): void;
  /**
   * Wait up to `timeout-ms` for a screen change, or for `still-ms` without one.
   * True when it happened, false on timeout.
   */
  export function wait(id: string, until: WaitFor, stillMs: number, timeoutMs: number): boolean;
  /**
   * Ask for a new desktop size: over Display Control when the server offers it, else by
   * reconnecting. Refused under `rdp.read_only` (it rearranges the remote desktop).
   */
  export function resize(id: string, size: DesktopSize): Resized;
  /**
   * Disconnect and forget the session.
   */
  export function close(id: string): void;
  export type Error = import('warden:rdp/types@0.1.0').Error;
  /**
   * How the server's screen updates are encoded.
   * # Variants
   * 
   * ## `"pending"`
   * 
   * No screen update yet.
   * ## `"bitmap"`
   * 
   * Bitmap updates (uncompressed, interleaved RLE or planar).
   * ## `"remotefx"`
   * 
   * RemoteFX surface bits (MS-RDPRFX), when the client offers it (`rdp.hosts.*.remotefx`).
   */
  export type Codec = 'pending' | 'bitmap' | 'remotefx';
  /**
   * What a session is and how far it got.
   */
  export interface DesktopInfo {
    /**
     * Stable id, unique among the host's sessions (`rdp-N`).
     */
    id: string,
    /**
     * The host alias.
     */
    host: string,
    /**
     * Desktop size in pixels, as the server negotiated it.
     */
    width: number,
    height: number,
    /**
     * Input is refused (grant `rdp.read_only`).
     */
    readOnly: boolean,
    /**
     * Bytes received from the server so far.
     */
    bytesReceived: bigint,
    /**
     * Screen updates applied to the framebuffer so far.
     */
    updates: bigint,
    /**
     * The connection is up (false once the server or the network dropped it).
     */
    connected: boolean,
    /**
     * Seconds since the Unix epoch.
     */
    created: bigint,
    /**
     * How the last screen update was encoded.
     */
    codec: Codec,
    /**
     * Connections re-established after a drop (or to apply a new size).
     */
    reconnects: number,
    /**
     * The session is over (the server logged it off, or it stayed unreachable after
     * the reconnection attempts); only `info` and `close` still answer.
     */
    ended: boolean,
  }
  /**
   * A desktop size in pixels: width 200 to 8192 and even, height 200 to 8192 (the
   * limits of MS-RDPEDISP, applied to every size the host asks for).
   */
  export interface DesktopSize {
    width: number,
    height: number,
  }
  /**
   * How a resize was carried out.
   * # Variants
   * 
   * ## `"display-control"`
   * 
   * A monitor layout over the Display Control virtual channel (MS-RDPEDISP): the
   * session stays connected.
   * ## `"reconnect"`
   * 
   * The server offers no Display Control channel: the host reconnected with the new
   * size (same credentials and certificate pin).
   */
  export type ResizeMethod = 'display-control' | 'reconnect';
  /**
   * What a resize did. The server decides the final size; `info` shows it.
   */
  export interface Resized {
    method: ResizeMethod,
    info: DesktopInfo,
  }
  /**
   * A rectangle of the desktop, in desktop pixels.
   */
  export interface Rect {
    x: number,
    y: number,
    width: number,
    height: number,
  }
  /**
   * A picture of the desktop.
   */
  export interface Picture {
    /**
     * Size of the PNG image.
     */
    width: number,
    height: number,
    png: Uint8Array,
  }
  /**
   * # Variants
   * 
   * ## `"left"`
   * 
   * ## `"right"`
   * 
   * ## `"middle"`
   */
  export type MouseButton = 'left' | 'right' | 'middle';
  /**
   * What `wait` waits for.
   * # Variants
   * 
   * ## `"change"`
   * 
   * Any screen update after the call started.
   * ## `"stillness"`
   * 
   * No screen update for the given time.
   */
  export type WaitFor = 'change' | 'stillness';
}
