import { get } from 'warden:capture/http@0.1.0';
import { host } from './errors.js';

function headerList(headers) {
  if (!headers) return [];
  return Array.isArray(headers) ? headers : Object.entries(headers);
}

/**
 * GET `url` through the host. Options: `headers` (object or [name, value] pairs), `timeoutMs`,
 * `maxBytes`. Resolves to `{ status, headers, body, finalUrl, redirects, truncated }` plus
 * `text()`, `json()`, `header(name)` and `contentType`.
 */
export async function httpGet(url, options = {}) {
  const response = host(get, {
    url: String(url),
    headers: headerList(options.headers),
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes === undefined ? undefined : BigInt(options.maxBytes),
  });
  const header = (name) => {
    const lower = name.toLowerCase();
    const found = response.headers.find(([key]) => key.toLowerCase() === lower);
    return found ? found[1] : undefined;
  };
  return {
    ...response,
    header,
    contentType: header('content-type'),
    text: () => new TextDecoder().decode(response.body),
    json: () => JSON.parse(new TextDecoder().decode(response.body)),
  };
}
