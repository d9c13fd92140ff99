// warden:sftp/sftp (wit/deps/sftp/sftp.wit): files on the hosts of `grants.sftp`. Errors are CapabilityError.

export type FileKind = 'file' | 'directory' | 'symlink' | 'other';
export interface FileStat {
  kind: FileKind;
  size: bigint;
  mode: number;
  modified?: bigint;
}
export interface DirEntry {
  name: string;
  stat: FileStat;
}
export type WriteMode = 'create' | 'truncate' | 'append';

export declare function list(host: string, path: string): Promise<DirEntry[]>;
export declare function stat(host: string, path: string): Promise<FileStat>;
export declare function read(host: string, path: string, offset: bigint, length: bigint): Promise<Uint8Array>;
export declare function write(host: string, path: string, data: Uint8Array, mode: WriteMode): Promise<bigint>;
export declare function mkdir(host: string, path: string): Promise<void>;
export declare function remove(host: string, path: string): Promise<void>;
export declare function rename(host: string, from: string, to: string): Promise<void>;
export declare function realpath(host: string, path: string): Promise<string>;
export declare function sessionHost(sessionId: string): Promise<string>;
