// warden:capture (wit/deps/capture/capture.wit). Errors are CapabilityError.

export interface HttpResponse {
  status: number;
  headers: [string, string][];
  body: Uint8Array;
  /** The URL after redirects. */
  finalUrl: string;
  redirects: number;
  /** The body was longer than the byte cap and was cut. */
  truncated: boolean;
  header(name: string): string | undefined;
  contentType: string | undefined;
  text(): string;
  json(): unknown;
}

/** GET through the host; every URL and redirect must match `grants.capture.http_hosts`. */
export declare function httpGet(
  url: string,
  options?: { headers?: Record<string, string> | [string, string][]; timeoutMs?: number; maxBytes?: number },
): Promise<HttpResponse>;

export type Format = 'html' | 'text' | 'markdown';
export type WaitUntil = 'load' | 'dom-content-loaded' | 'network-idle';

export interface Cookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  httpOnly: boolean;
  secure: boolean;
  expires?: number;
}

export interface Capture {
  content: string;
  title: string;
  finalUrl: string;
  cookies?: Cookie[];
}

/** Opens `url` (origin in `grants.capture.origins`) in the capture profile. */
export declare function capturePage(
  url: string,
  options?: { format?: Format; waitUntil?: WaitUntil; timeoutMs?: number; captureCookies?: boolean },
): Promise<Capture>;

export declare function getCookies(request: { url?: string; domain?: string; openUrl?: string }): Promise<{
  header: string;
  cookies: Cookie[];
}>;

export interface LoginCondition {
  loginUrl?: string;
  untilUrl?: string;
  untilSelector?: string;
  timeoutMs?: number;
}

export declare function loginThenCapture(request: LoginCondition & { url: string; format?: Format }): Promise<Capture>;

export declare function ensureLogin(
  request: LoginCondition & { url: string },
): Promise<{ alreadyLoggedIn: boolean; finalUrl: string; title: string }>;
