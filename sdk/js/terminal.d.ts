// warden:terminal/terminal (wit/deps/terminal/terminal.wit): shells on the host or over SSH.
// Errors are CapabilityError.

export type Target = { tag: 'local' } | { tag: 'ssh'; val: string };
export interface SessionInfo {
  id: string;
  target: string;
  cols: number;
  rows: number;
  readOnly: boolean;
  outputBytes: bigint;
  exitStatus?: number;
  ended: boolean;
  created: bigint;
}
export interface Chunk {
  data: Uint8Array;
  next: bigint;
  skipped: bigint;
  ended: boolean;
}
/** One open terminal; every method is async. */
export interface Session {
  info(): Promise<SessionInfo>;
  write(data: Uint8Array): Promise<void>;
  read(offset: bigint, maxBytes: number, waitMs: number): Promise<Chunk>;
  scrollback(lines: number): Promise<string>;
  screen(): Promise<string>;
  resize(cols: number, rows: number): Promise<void>;
  beginCommand(endMarker: Uint8Array): Promise<void>;
  busy(): Promise<boolean>;
  close(): Promise<void>;
  watch(uri: string): Promise<void>;
}
export declare function open(target: Target, cols: number, rows: number): Promise<Session>;
export declare function attach(id: string): Promise<Session>;
export declare function listSessions(): Promise<SessionInfo[]>;
