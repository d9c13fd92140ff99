// warden:rdp/desktop: every function as an async function; errors are CapabilityError.
import * as raw from 'warden:rdp/desktop@0.1.0';
import { asyncModule } from './wrap.js';

const api = asyncModule(raw);
export const { open, info, listDesktops, screenshot, pointerMove, click, drag, scroll, typeText, pressKeys, wait, resize, close } = api;
