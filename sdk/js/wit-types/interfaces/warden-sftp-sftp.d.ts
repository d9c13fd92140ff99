/// <reference path="./warden-sftp-types.d.ts" />
declare module 'warden:sftp/sftp@0.1.0' {
  export function list(host: string, path: string): Array<DirEntry>;
  export function stat(host: string, path: string): FileStat;
  export function read(host: string, path: string, offset: bigint, length: bigint): Uint8Array;
  /**
   * Returns the file's size after the write.
   */
  export function write(host: string, path: string, data: Uint8Array, mode: WriteMode): bigint;
  export function mkdir(host: string, path: string): void;
  /**
   * Remove a file, a symlink or an empty directory.
   */
  export function remove(host: string, path: string): void;
  export function rename(host: string, from: string, to: string): void;
  /**
   * The canonical absolute path on the server.
   */
  export function realpath(host: string, path: string): string;
  /**
   * The host alias of an open SSH terminal session (any plugin's), for the calls above:
   * the SFTP grants of the calling plugin for that alias apply exactly as if it had named
   * the alias, so a session id never reaches further than the alias would. A local PTY
   * session has no alias (`invalid-argument`); an unknown id is `not-found`.
   */
  export function sessionHost(sessionId: string): string;
  export type Error = import('warden:sftp/types@0.1.0').Error;
  /**
   * # Variants
   * 
   * ## `"file"`
   * 
   * ## `"directory"`
   * 
   * ## `"symlink"`
   * 
   * ## `"other"`
   */
  export type FileKind = 'file' | 'directory' | 'symlink' | 'other';
  export interface FileStat {
    kind: FileKind,
    size: bigint,
    /**
     * Unix permission bits.
     */
    mode: number,
    /**
     * Seconds since the Unix epoch.
     */
    modified?: bigint,
  }
  export interface DirEntry {
    name: string,
    stat: FileStat,
  }
  /**
   * How `write` treats an existing file.
   * # Variants
   * 
   * ## `"create"`
   * 
   * Create a new file; fail if it exists.
   * ## `"truncate"`
   * 
   * Create the file or replace its contents.
   * ## `"append"`
   * 
   * Create the file or add to its end.
   */
  export type WriteMode = 'create' | 'truncate' | 'append';
}
