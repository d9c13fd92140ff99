#!/usr/bin/env node
// Regenerates wit-types/: TypeScript declarations of every Warden interface (`declare module
// 'warden:browser/browser@0.1.0'` ...), made by jco from the repository's wit/. The SDK's
// capability declarations (browser.d.ts, ...) are written over them. Run after changing wit/:
// `npm run types`.

import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SDK = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(SDK, 'wit-types');

// jco reads the WIT through preview2-shim's WASI filesystem, which preopens nothing by default
// (the cause of jco's "failed to read path for WIT").
const { _setPreopens } = await import('@bytecodealliance/preview2-shim/filesystem');
_setPreopens({ '/': '/' });
const { typesComponent } = await import(
  path.join(SDK, 'node_modules', '@bytecodealliance', 'jco', 'dist', 'cmd', 'types.js')
);

const files = await typesComponent(path.join(SDK, '..', '..', 'wit'), {
  worldName: 'warden:plugin/plugin',
  guest: true,
  outDir: OUT,
});
await rm(OUT, { recursive: true, force: true });
for (const [file, data] of Object.entries(files)) {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, data);
}
console.log(`wrote ${Object.keys(files).length} files into ${path.relative(process.cwd(), OUT) || OUT}`);
