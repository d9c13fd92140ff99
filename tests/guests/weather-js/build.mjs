// Builds weather.js into a component with componentize-js's JS API (its CLI, and jco's, fail
// with the preview2-shim this repository installs): `node build.mjs [-o weather.wasm]`.
// componentize-js comes from ./node_modules (in this repository, a link to sdk/js/node_modules).
// The fetch event (serving HTTP) is off: the component only makes requests.

import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const o = args.indexOf('-o');
const output = path.resolve(o >= 0 ? args[o + 1] : path.join(here, 'weather.wasm'));

const started = Date.now();
const componentizeUrl = import.meta.resolve('@bytecodealliance/componentize-js');
const { componentize } = await import(componentizeUrl);

// componentize-js reads the sources through preview2-shim's WASI filesystem, which preopens
// nothing since 0.26: preopen / on the shim instance componentize-js itself resolves.
const fromComponentize = createRequire(fileURLToPath(componentizeUrl));
const shim = await import(pathToFileURL(fromComponentize.resolve('@bytecodealliance/preview2-shim/filesystem')).href);
shim._setPreopens({ '/': '/' });

const { component } = await componentize({
  sourcePath: path.join(here, 'weather.js'),
  witPath: path.join(here, 'wit'),
  worldName: 'weather',
  disableFeatures: ['fetch-event'],
});
await writeFile(output, component);
console.log(`built ${output} (${(component.length / 1048576).toFixed(1)} MiB) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
