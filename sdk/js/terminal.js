// warden:terminal/terminal: every function as an async function; errors are CapabilityError.
import * as raw from 'warden:terminal/terminal@0.1.0';
import { asyncModule } from './wrap.js';

const api = asyncModule(raw);
export const { open, attach, listSessions } = api;
