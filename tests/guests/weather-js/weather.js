// A component in the style of Wassette's get-weather-js example, written for another MCP host
// and loaded by Warden unchanged: one exported function, its configuration through
// wasi:config/store@0.2.0-draft, its requests through the global fetch() (componentize-js's
// wasi:http). The API is OpenWeather's shape (geocoding, then current weather); `base_url`
// points it anywhere, the test at a local server. The key goes in the Authorization header.

import { get } from 'wasi:config/store@0.2.0-draft';
import { getEnvironment } from 'wasi:cli/environment@0.2.10';

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
