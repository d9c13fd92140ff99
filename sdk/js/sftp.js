// warden:sftp/sftp: every function as an async function; errors are CapabilityError.
import * as raw from 'warden:sftp/sftp@0.1.0';
import { asyncModule } from './wrap.js';

const api = asyncModule(raw);
export const { list, stat, read, write, mkdir, remove, rename, realpath, sessionHost } = api;
