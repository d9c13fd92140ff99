// A component in the style of Wassette's get-weather-js example, written for another MCP host
// and loaded by Warden unchanged: one exported function, its configuration through
// wasi:config/store@0.2.0-draft, its requests through the global fetch() (componentize-js's
// wasi:http). The API is OpenWeather's shape (geocoding, then current weather); `base_url`
// points it anywhere, the test at a local server. The key goes in the Authorization header.
// Beside it, what a component written for any wasip2 host does with the environment and files.

import { get } from 'wasi:config/store@0.2.0-draft';
import { getEnvironment } from 'wasi:cli/environment@0.2.10';
import { getDirectories } from 'wasi:filesystem/preopens@0.2.12';

/** A configuration value, or an error naming the key to set. */
function config(key) {
  let value;
  try {
    value = get(key);
  } catch (e) {
    throw `cannot read config ${key}: ${e?.payload?.val ?? e}`;
  }
  if (value === undefined) throw `config ${key} is not set: configure it for this component`;
  return value;
}

/** GET `url` as JSON; a failure is thrown as text (the export's error string). */
async function getJson(url, apiKey) {
  const where = url.split('?')[0];
  let response;
  try {
    response = await fetch(url, { headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' } });
  } catch (e) {
    throw `request to ${where} failed: ${e}`;
  }
  if (!response.ok) throw `${where} answered ${response.status}`;
  try {
    return await response.json();
  } catch (e) {
    throw `${where} did not answer JSON: ${e}`;
  }
}

export async function getWeather(city) {
  const apiKey = config('api_key');
  const base = config('base_url').replace(/\/+$/, '');
  const places = await getJson(`${base}/geo/1.0/direct?q=${encodeURIComponent(city)}&limit=1`, apiKey);
  if (!Array.isArray(places) || places.length === 0) throw `no place is called ${city}`;
  const { name, lat, lon } = places[0];
  const data = await getJson(`${base}/data/2.5/weather?lat=${lat}&lon=${lon}&units=metric`, apiKey);
  const description = data.weather?.[0]?.description ?? 'no description';
  return `${name}: ${data.main.temp} °C, ${description}`;
}

/** The units of answers, from the environment the host grants (WASI's own, as any toolchain reads it). */
export function units() {
  const found = getEnvironment().find(([name]) => name === 'WEATHER_UNITS');
  if (!found) throw 'WEATHER_UNITS is not set';
  return found[1];
}

// Favourites, kept in a file through WASI's own filesystem interfaces (componentize-js has no
// file API of its own): the directory the host preopens at /data, or an error saying none is.
const FAVORITES = 'favorites.txt';

function dataDirectory() {
  const found = getDirectories().find(([, path]) => path === '/data');
  if (!found) throw 'no directory is preopened at /data: the host grants none';
  return found[0];
}

/** The text of favorites.txt in `dir`, '' when there is none yet. */
function readFavorites(dir) {
  let file;
  try {
    file = dir.openAt({}, FAVORITES, {}, { read: true });
  } catch (e) {
    if (e?.payload === 'no-entry') return '';
    throw `cannot open /data/${FAVORITES}: ${e?.payload ?? e}`;
  }
  const chunks = [];
  let offset = 0n;
  for (;;) {
    const [bytes, end] = file.read(65536n, offset);
    chunks.push(bytes);
    offset += BigInt(bytes.length);
    if (end || bytes.length === 0) break;
  }
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return new TextDecoder().decode(all);
}

export function saveFavorite(city) {
  if (!/^[A-Za-z\u00C0-\u024F .'-]{1,64}$/.test(city)) throw `not a city name: ${city}`;
  const dir = dataDirectory();
  const known = readFavorites(dir);
  if (known.split('\n').includes(city)) return `${city} is already a favourite`;
  let file;
  try {
    file = dir.openAt({}, FAVORITES, { create: true }, { write: true });
    file.write(new TextEncoder().encode(`${city}\n`), file.stat().size);
  } catch (e) {
    throw `cannot write /data/${FAVORITES}: ${e?.payload ?? e}`;
  }
  return `saved ${city}`;
}

export function favorites() {
  const text = readFavorites(dataDirectory()).trimEnd();
  return text === '' ? 'no favourites yet' : text;
}
