// warden:browser/browser: every function as an async function; errors are CapabilityError.
import * as raw from 'warden:browser/browser@0.1.0';
import { asyncModule } from './wrap.js';

const api = asyncModule(raw);
export const { openPage, firstPage, search, listTabs, attachTab, closeSession, listSessions, consoleMessages, networkRequests, addRoute, removeRoute, listRoutes, setEmulation, getEmulation, storageItems, setStorageItem, clearStorage, createSession, saveState, createSessionFromState, listStates, deleteState } = api;
